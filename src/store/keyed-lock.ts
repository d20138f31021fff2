import { PG_SESSION } from './pg-session.js';

/**
 * Runs one critical section at a time per key. Within the process, callers of the same key
 * queue in order. With PostgreSQL (several instances), the section also holds a session
 * advisory lock on the key, on a connection of its own: the section's queries use the pool
 * as usual, so many keys held at once never starve the pool.
 *
 * Used where a check and the write it allows must not interleave with another request's,
 * and the check needs chain reads that cannot sit inside a database transaction (a listing
 * preflight commits a source's balance only after reading it from Counterparty).
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** `pgUrl` null: one process (SQLite). `scope` keeps markets sharing a database (schemas) apart. */
  constructor(
    private readonly pgUrl: string | null,
    private readonly scope = '',
    private readonly session: { applicationName?: string; onError?: (err: Error) => void } = {},
  ) {}

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return this.pgUrl ? await this.acrossInstances(key, fn) : await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  private async acrossInstances<T>(key: string, fn: () => Promise<T>): Promise<T> {
    // pg is imported here, not with the module: a SQLite market (the default) never loads it
    // (docs/performance.md, idle memory). After the first call this is a cached module lookup.
    const { default: pg } = await import('pg');
    // Its lock wait is rightly unbounded (another instance holds the section); opening it is not,
    // and keepalive finds a peer that vanished while the section ran (pg-session.ts).
    const client = new pg.Client({ connectionString: this.pgUrl!, ...PG_SESSION, ...(this.session.applicationName ? { application_name: this.session.applicationName } : {}) });
    // A session the server ends mid-section must not end the process (an unheard 'error' does).
    // Its advisory lock is gone with it; the section's own writes are still guarded by their
    // UPDATEs and constraints, the lock only kept two checks from interleaving.
    client.on('error', (err: Error) => this.session.onError?.(err));
    await client.connect();
    try {
      // The lock ends with the session if this process dies mid-section.
      await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [`${this.scope}:${key}`]);
      return await fn();
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
