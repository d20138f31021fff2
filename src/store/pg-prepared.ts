import crypto from 'node:crypto';
import pg from 'pg';
import { PREPARED_MARK } from './prepared-mark.js';

// The mark and why: prepared-mark.ts.
export { PREPARED_MARK };

/** The error a query gets when the database did not answer it in time (its connection is dropped). */
export class QueryDeadlineExceeded extends Error {
  /** The code isStoreUnavailable (db.ts) reads: the request answers 503, retryable. */
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms (PG_QUERY_TIMEOUT_MS); its connection was dropped`);
  }
}

/**
 * pg's Client, with the marked queries named and a deadline on every query.
 *
 * The deadline (`queryDeadlineMs` in the pool's options, 0 for none) is for a database that stops
 * answering without closing anything: a primary that hangs, a network that black-holes it after a
 * failover. A query on such a connection waits for TCP's retransmission limit, about 15 minutes,
 * and holds its pooled connection all that time, so one stall took every connection of the pool
 * and the market answered nothing until then. Past the deadline the connection is destroyed: the
 * query fails as a broken connection does (503, retryable), the pool opens a new one, and the
 * server rolls back whatever that session had open when it sees the close.
 */
export class PreparingClient extends pg.Client {
  /** Statement names by text, per connection (hashing the book's text on every read cost more than the lookup). */
  private readonly names = new Map<string, string>();
  private readonly deadlineMs: number;
  private deadlineHit = false;

  constructor(config?: pg.ClientConfig & { queryDeadlineMs?: number }) {
    super(config);
    this.deadlineMs = config?.queryDeadlineMs ?? 0;
  }

  private nameOf(text: string): string {
    let n = this.names.get(text);
    if (!n) {
      n = `k_${crypto.createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      if (this.names.size >= 1_000) this.names.clear();
      this.names.set(text, n);
    }
    return n;
  }

  // pg's query() has many overloads; only (text, values) from Kysely's driver is marked.
  override query(config: unknown, values?: unknown, callback?: unknown): never {
    const sent: unknown =
      typeof config === 'string' && config.includes(PREPARED_MARK) && Array.isArray(values)
        ? (super.query as (c: unknown, cb?: unknown) => unknown)({ name: this.nameOf(config), text: config, values }, callback)
        : (super.query as (c: unknown, v?: unknown, cb?: unknown) => unknown)(config, values, callback);
    // Kysely's driver uses the promise form; a callback or a stream (a submittable) goes unbounded.
    if (this.deadlineMs <= 0 || !(sent instanceof Promise)) return sent as never;
    const timer = setTimeout(() => this.abandon(), this.deadlineMs);
    return sent.then(
      (r: unknown) => (clearTimeout(timer), r),
      (e: unknown) => {
        clearTimeout(timer);
        throw this.deadlineHit ? new QueryDeadlineExceeded(this.deadlineMs) : e;
      },
    ) as never;
  }

  /** Drops the connection under a query that outlived the deadline (class comment). */
  private abandon(): void {
    if (this.deadlineHit) return;
    this.deadlineHit = true;
    (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }
}
