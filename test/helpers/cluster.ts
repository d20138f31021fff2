/**
 * Several market processes on one store (test/helpers/crash.ts's rig), as the cluster tests and
 * the bench start them: the config they share, and which of them leads a role now.
 */
import crypto from 'node:crypto';
import type { CrashRig, Market } from './crash.js';

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
