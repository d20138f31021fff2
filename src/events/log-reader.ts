/**
 * Reads the event log in ascending seq order. Every number handed out is committed before the
 * next one is (append.ts), so `seq > after` in ascending order never skips an event committed
 * later: the watermark is simply the highest committed seq (`event_seq.last`).
 */
import type { Db } from '../store/db.js';
import type { EventLogTables } from './tables.js';

export type LogRow = EventLogTables['event_log'];
export type LogScope = { feed: 'public'; kinds?: string[] } | { feed: 'owner'; address: string };

/** A position older than the retention: the reader must start over from a fresh page. */
export class ResyncRequired extends Error {
  constructor(readonly after: number, readonly oldest: number) {
    super(`position ${after} is older than the retained log (from ${oldest + 1})`);
  }
}

export class EventLogReader {
  constructor(private readonly db: Db) {}

  /** The highest committed seq and the highest pruned one. */
  async head(): Promise<{ last: number; prunedThrough: number }> {
    const r = await this.db.selectFrom('event_seq').select(['last', 'pruned_through']).where('id', '=', 1).executeTakeFirstOrThrow();
    return { last: Number(r.last), prunedThrough: Number(r.pruned_through) };
  }

  /** Throws ResyncRequired when events after `after` were pruned. */
  async checkPosition(after: number): Promise<void> {
    const { prunedThrough } = await this.head();
    if (after < prunedThrough) throw new ResyncRequired(after, prunedThrough);
  }

  /** Up to `limit` entries of one feed after `after`, oldest first. */
  async page(scope: LogScope, after: number, limit: number): Promise<LogRow[]> {
    let q = this.db.selectFrom('event_log').selectAll().where('seq', '>', after);
    if (scope.feed === 'owner') q = q.where('feed', '=', 'owner').where('address', '=', scope.address);
    else q = scope.kinds ? q.where('feed', '=', 'public').where('kind', 'in', scope.kinds) : q.where('feed', '=', 'public');
    return numeric(await q.orderBy('seq').limit(limit).execute());
  }

  /** The newest `limit` entries of one feed, oldest first: where a reader that starts from now begins. */
  async last(scope: LogScope, limit: number): Promise<LogRow[]> {
    let q = this.db.selectFrom('event_log').selectAll();
    if (scope.feed === 'owner') q = q.where('feed', '=', 'owner').where('address', '=', scope.address);
    else q = scope.kinds ? q.where('feed', '=', 'public').where('kind', 'in', scope.kinds) : q.where('feed', '=', 'public');
    return numeric(await q.orderBy('seq', 'desc').limit(limit).execute()).reverse();
  }

  /** Up to `limit` entries of every feed after `after`, oldest first (the stream's fan-out). */
  async all(after: number, limit: number): Promise<LogRow[]> {
    return numeric(await this.db.selectFrom('event_log').selectAll().where('seq', '>', after).orderBy('seq').limit(limit).execute());
  }
}

/** bigint columns come back as numbers on PostgreSQL (store/db.ts) but may be strings through a driver change; normalise once. */
const numeric = (rows: LogRow[]): LogRow[] => rows.map((r) => ({ ...r, seq: Number(r.seq), at: Number(r.at), recorded_at: Number(r.recorded_at) }));
