/**
 * Several market processes on one store (test/helpers/crash.ts's rig), as the cluster tests and
 * the bench start them: the config they share, which of them leads a role now, and the setup
 * every cluster test file makes (clusterRig).
 */
import crypto from 'node:crypto';
import { after } from 'node:test';
import { crashRig, type CrashRig, type Market } from './crash.js';
import { Receiver } from '../webhooks/receiver.js';

/**
 * The config every instance gets: one trusted proxy hop (each client may speak from an address
 * of its own), recovery slowed (it would only add broadcasts to count) and no anchor pool;
 * `redis` shares the limits, under a prefix of the run's own. `over` adds or overrides.
 */
export function clusterEnv(opts: { redis?: string; over?: Record<string, string> } = {}): Record<string, string> {
  return {
    TRUST_PROXY_HOPS: '1',
    RECOVERY_INTERVAL_MS: '600000',
    ANCHOR_POOL_SIZE: '0',
    ...(opts.redis ? { REDIS_URL: opts.redis, REDIS_PREFIX: `cl${crypto.randomBytes(4).toString('hex')}:` } : {}),
    ...opts.over,
  };
}

/** The role's row in leader_epochs (undefined before any instance took it), and whether a market leads it. */
export function leaders(rig: CrashRig) {
  const holder = (role: string) =>
    rig.withMarketDb(async (db) => (await db.selectFrom('leader_epochs').selectAll().where('role', '=', role).executeTakeFirst()) ?? undefined);
  const leads = async (m: Market, role: string) => (await holder(role))?.holder.split(':')[1] === String(m.proc.pid);
  return { holder, leads };
}

/** A tuple of `N` markets. */
type Instances<N extends number, T extends Market[] = []> = T['length'] extends N ? T : Instances<N, [...T, Market]>;

/**
 * A cluster test file's processes: a webhook receiver, and the rig (devnet, proxy, the one store)
 * its test starts; both are closed after the file. `start` makes the rig and `instances` markets
 * on it with the config they share (leadership ticking every `tickMs`, webhooks dispatched and
 * retried within a fraction of a second; `redis` and `over` as clusterEnv), the first up alone so
 * that it leads every role, the others side by side; and who leads a role.
 */
export function clusterRig(name: string) {
  let rig: CrashRig | undefined;
  const receiver = new Receiver();
  after(async () => {
    await rig?.close();
    if (receiver.base) await receiver.close();
  });
  const start = async <N extends number>(o: { instances: N; tickMs: number; redis?: string; over?: Record<string, string> }) => {
    const r = (rig = await crashRig(name));
    const over = { LEADERSHIP_INTERVAL_MS: String(o.tickMs), WEBHOOK_INTERVAL_MS: '200', WEBHOOK_RETRY_SCHEDULE_MS: '300', ...o.over };
    const env = clusterEnv({ over, ...(o.redis ? { redis: o.redis } : {}) });
    const first = await r.market(undefined, env);
    const others = await Promise.all(Array.from({ length: o.instances - 1 }, () => r.market(undefined, env)));
    return { rig: r, markets: [first, ...others] as Instances<N>, ...leaders(r) };
  };
  return { receiver, start };
}
