import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../store/db.js';
import { lease, takeEpoch, type Lease } from './fence.js';
import type { Leadership, LeaseChange } from './leadership.js';

/** Every instance listens here; a leader that steps down notifies, so a follower takes over at once. */
const CHANNEL = 'market_leadership';

/**
 * Leadership on PostgreSQL: one session advisory lock per role, held on a connection of this
 * instance's own (a pg Client, never the pool), so the lock lives exactly as long as that
 * session. Every `intervalMs` the instance checks its session (a lost one loses every role at
 * once: the jobs stop) and tries the roles it does not hold; a leader that steps down notifies
 * the others, who try at once instead of at their next tick. A grant increments the role's
 * epoch in `leader_epochs` on the same session, so a stale leader's next fenced write fails.
 */
export class PgLeadership implements Leadership {
  private client: pg.Client | undefined;
  private readonly leases = new Map<string, Lease>();
  private list: readonly string[] = [];
  private onChange: LeaseChange = async () => {};
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Grants and losses reach `onChange` one at a time, in the order they happened. */
  private changes: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly url: string,
    private readonly schema: string,
    readonly instance: string,
    private readonly intervalMs: number,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => number,
  ) {}

  async start(roles: readonly string[], onChange: LeaseChange): Promise<void> {
    this.list = [...roles];
    this.onChange = onChange;
    await this.tick();
  }

  roles(): readonly string[] {
    return this.list;
  }

  held(): ReadonlyMap<string, Lease> {
    return this.leases;
  }

  private key(role: string): string {
    return `${this.schema}:leader:${role}`;
  }

  /** One contention pass at a time; a notification during a pass runs one more. */
  private tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.ticking = (async () => {
      do {
        this.again = false;
        await this.contend();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.ticking = undefined;
      if (!this.stopped) {
        this.timer = setTimeout(() => void this.tick(), this.intervalMs);
        this.timer.unref();
      }
    });
    return this.ticking;
  }

  private async contend(): Promise<void> {
    if (this.stopped) return;
    let c: pg.Client | undefined;
    try {
      c = this.client ?? (await this.connect());
      // A session that died without an event shows here, before any role is believed held.
      await c.query('select 1');
      for (const role of this.list) {
        if (this.leases.has(role) || this.stopped) continue;
        const got = await c.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as ok', [this.key(role)]);
        if (!got.rows[0]?.ok) continue;
        const q = takeEpoch(this.db, role, this.instance, this.now());
        const taken = await c.query<{ epoch: string }>(q.sql, [...q.parameters]);
        const l = lease(role, Number(taken.rows[0]!.epoch));
        this.leases.set(role, l);
        this.log.info({ role, epoch: l.epoch, instance: this.instance }, 'leadership taken');
        await this.change(role, l);
      }
    } catch (e) {
      this.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'leadership session failed');
      if (c) await this.lose(c);
    }
  }

  private async connect(): Promise<pg.Client> {
    // Named, so an operator sees (and can end) each instance's leadership session in pg_stat_activity.
    const c = new pg.Client({
      connectionString: this.url,
      options: `-c search_path=${this.schema}`,
      application_name: `market-leader ${this.instance}`.slice(0, 63),
      // A session that stops answering (a partition sends no error) fails its next check instead of hanging it.
      keepAlive: true,
      query_timeout: Math.max(this.intervalMs, 5_000),
    });
    c.on('error', (e: Error) => {
      this.log.warn({ err: e.message }, 'leadership connection lost');
      void this.lose(c);
    });
    c.on('end', () => void this.lose(c));
    c.on('notification', (n: pg.Notification) => {
      if (n.payload === this.schema) void this.tick();
    });
    await c.connect();
    await c.query(`listen ${CHANNEL}`);
    this.client = c;
    return c;
  }

  private change(role: string, l: Lease | undefined): Promise<void> {
    const next = this.changes.then(() => this.onChange(role, l));
    this.changes = next.catch((e: unknown) => this.log.error({ role, err: String(e) }, 'leadership change failed'));
    return next;
  }

  /** The session is gone, and with it every lock: every role is lost at once. */
  private async lose(c: pg.Client): Promise<void> {
    if (this.client !== c) return;
    this.client = undefined;
    void c.end().catch(() => undefined);
    for (const role of [...this.leases.keys()]) {
      this.leases.delete(role);
      this.log.warn({ role, instance: this.instance }, 'leadership lost');
      await this.change(role, undefined);
    }
  }

  async resign(role: string): Promise<void> {
    if (!this.leases.delete(role)) return;
    await this.change(role, undefined);
    const c = this.client;
    if (c) {
      await c.query('select pg_advisory_unlock(hashtextextended($1, 0))', [this.key(role)]).catch(() => undefined);
      await c.query('select pg_notify($1, $2)', [CHANNEL, this.schema]).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    const c = this.client;
    this.client = undefined;
    this.leases.clear();
    if (!c) return;
    try {
      await c.query('select pg_advisory_unlock_all()');
      await c.query('select pg_notify($1, $2)', [CHANNEL, this.schema]);
    } finally {
      await c.end().catch(() => undefined);
    }
  }
}
