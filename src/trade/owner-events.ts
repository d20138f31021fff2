/**
 * The one writer of `owner_events`, the stored rows of the owner feed (every area's owner events:
 * listings, bids, exact authorizations, counters, collection offers). Each write appends its row,
 * or its retraction, to the event log in the same transaction (event-rows.ts).
 */
import type { Db, Tx } from '../store/db.js';
import type { DatabaseSchema } from '../store/schema.js';
import { logOwnerEvent, retractOwnerEvent } from './event-rows.js';

type OwnerEventRow = DatabaseSchema['owner_events'];

/** Idempotent on event_id; a new row is appended to the event log too. */
export async function recordEvent(tx: Db | Tx, row: OwnerEventRow): Promise<void> {
  if (!tx.isTransaction) return tx.transaction().execute((t) => recordEvent(t, row));
  // ON CONFLICT, not a caught unique violation: on PostgreSQL that would abort the transaction.
  const res = await tx.insertInto('owner_events').values(row).onConflict((oc) => oc.column('event_id').doNothing()).executeTakeFirst();
  if (Number(res.numInsertedOrUpdatedRows ?? 0n) === 1) logOwnerEvent(tx as Tx, row);
}

/** Removes a stored owner event a reorg undid (rule 6) and appends its retraction to the log. */
export async function retractStoredEvent(tx: Tx, id: string, at: number): Promise<void> {
  const gone = await tx.deleteFrom('owner_events').where('event_id', '=', id).returning('address').executeTakeFirst();
  if (gone) retractOwnerEvent(tx, gone.address, id, at);
}
