/**
 * The one writer of the event log. A state owner calls `appendEvent` (or `appendRetraction`)
 * inside the transaction of its transition; the entries wait in memory and are written as the
 * transaction's last statements (the counter first, since it hands out the numbers):
 *
 *   UPDATE event_seq SET last = last + n RETURNING last;  -- then the n rows, then COMMIT
 *
 * Why this order makes seq order commit order, so a reader that serves `seq > after` in
 * ascending order never skips an event committed later with a lower number:
 * - PostgreSQL: the UPDATE takes the counter row's lock and holds it to COMMIT. A second
 *   appender's UPDATE waits on that lock and, once the first commits, re-reads the row (READ
 *   COMMITTED re-evaluates the updated row) and numbers from the first one's `last`. A transaction
 *   is visible to new snapshots before it releases its locks, so when number k+1 is handed out,
 *   every number ≤ k is already committed (or rolled back, leaving a gap no one will fill).
 *   The highest visible seq is therefore a safe watermark. Taking the numbers last keeps the
 *   lock to the commit itself: no appender waits on another's business logic, and nothing is
 *   locked after the counter, so the counter can never be part of a deadlock.
 * - SQLite: one writer at a time (the database lock), so the same holds trivially.
 *
 * On PostgreSQL the counter's trigger (migration 020) sends NOTIFY, which is delivered on
 * commit; in process, listeners registered with `onAppended` hear it after the commit.
 */
import crypto from 'node:crypto';
import type { Db, Tx } from '../store/db.js';
import { afterCommit, beforeCommit, storeOf } from '../store/tx-hooks.js';
import { compiledOnce } from '../store/compiled.js';
import { insertRows } from '../store/insert-rows.js';
import type { EventLogTables } from './tables.js';

export type Feed = 'public' | 'owner';
export const RETRACTED = 'event_retracted';

export interface LogEvent {
  event_id: string;
  feed: Feed;
  /** The owner's address on the owner feed; null (or absent) on the public feed. */
  address?: string | null;
  kind: string;
  at: number;
  /** The row the feed shows for it, in the feed's row shape. */
  row: object;
}

type Row = EventLogTables['event_log'];

const queued = new WeakMap<object, Omit<Row, 'seq' | 'recorded_at'>[]>();
const listeners = new WeakMap<Db, Set<(last: number) => void>>();

/** Appends an event to the log when `tx` commits (nothing when it rolls back). */
export function appendEvent(tx: Tx, e: LogEvent): void {
  queue(tx, { event_id: e.event_id, feed: e.feed, address: e.address ?? null, kind: e.kind, at: e.at, retracts: null, row_json: JSON.stringify(e.row) });
}

/**
 * Appends an explicit withdrawal of `retracts` (a confirmation a reorg undid, an ending a reorg
 * reverted, a sale whose settlement was released). It has an id of its own, random: a subject
 * may be retracted more than once over reorgs, and each retraction is a distinct entry.
 */
export function appendRetraction(tx: Tx, r: { feed: Feed; address?: string | null; retracts: string; at: number }): void {
  const event_id = `ev_${crypto.randomBytes(16).toString('hex')}`;
  const row = { event_id, kind: RETRACTED, at: r.at, retracts: r.retracts };
  queue(tx, { event_id, feed: r.feed, address: r.address ?? null, kind: RETRACTED, at: r.at, retracts: r.retracts, row_json: JSON.stringify(row) });
}

/** Calls `fn(lastSeq)` after each commit in this process that appended events to `db`'s log. */
export function onAppended(db: Db, fn: (last: number) => void): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

function queue(tx: Tx, row: Omit<Row, 'seq' | 'recorded_at'>): void {
  let rows = queued.get(tx);
  if (!rows) {
    queued.set(tx, (rows = []));
    beforeCommit(tx, 'event_log', () => flush(tx, rows!));
  }
  rows.push(row);
}

// Compiled once: every write that appends events runs it.
const takeSeq = compiledOnce((tx, n: number) =>
  tx
    .updateTable('event_seq')
    .set((eb) => ({ last: eb('last', '+', n) }))
    .where('id', '=', 1)
    .returning('last'),
);

async function flush(tx: Tx, rows: Omit<Row, 'seq' | 'recorded_at'>[]): Promise<void> {
  queued.delete(tx);
  if (!rows.length) return;
  const recorded_at = Math.floor(Date.now() / 1000);
  const taken = (await takeSeq(tx, rows.length)).rows[0] as { last: number | string } | undefined;
  if (!taken) throw new Error('event log: no event_seq row');
  const { last } = taken;
  const first = Number(last) - rows.length + 1;
  const numbered = rows.map((r, i) => ({ ...r, seq: first + i, recorded_at }));
  // SQLite caps the bound parameters of one statement; an indexer block may end many listings.
  for (let i = 0; i < numbered.length; i += 200) await insertRows(tx, 'event_log', numbered.slice(i, i + 200));
  const db = storeOf(tx);
  afterCommit(tx, () => {
    for (const fn of listeners.get(db) ?? []) fn(Number(last));
  });
}

/** Deletes entries recorded before `cutoff` (unix s), a batch at a time; returns how many. */
export async function pruneLog(db: Db, cutoff: number, batch = 5000): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const edge = await tx.selectFrom('event_log').select('seq').where('recorded_at', '<', cutoff).orderBy('seq', 'desc').limit(1).executeTakeFirst();
    if (!edge) return 0;
    // Everything at or below the edge goes (seq order is commit order, so recorded_at only grows with seq).
    const low = await tx.selectFrom('event_log').select('seq').orderBy('seq').limit(1).offset(batch).executeTakeFirst();
    const through = Math.min(Number(edge.seq), low ? Number(low.seq) - 1 : Number(edge.seq));
    const res = await tx.deleteFrom('event_log').where('seq', '<=', through).executeTakeFirst();
    // Only grows: every seq at or below the old mark was deleted before, so `through` is above it.
    await tx.updateTable('event_seq').set({ pruned_through: through }).where('id', '=', 1).execute();
    return Number(res.numDeletedRows);
  });
}
