/** The one owner of counter state (tables.ts): create, take (with the original offer consumed), withdraw. */
import type { Tx } from '../../store/db.js';
import { endOffers } from '../offers/lifecycle.js';
import type { CounterTables } from './tables.js';

type CounterRow = CounterTables['offer_counters'];

export async function createCounter(tx: Tx, row: CounterRow): Promise<void> {
  await tx.insertInto('offer_counters').values(row).execute();
}

/** active → taken by `placementId`; the offer countered is consumed (offer_consumed_by_counter). */
export async function takeCounter(tx: Tx, c: CounterRow, placementId: string, at: number): Promise<boolean> {
  const res = await tx
    .updateTable('offer_counters')
    .set({ state: 'taken', taken_by: placementId, updated_at: at })
    .where('id', '=', c.id)
    .where('state', '=', 'active')
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
  const offer = await tx.selectFrom('offers').selectAll().where('id', '=', c.offer_id).where('state', '=', 'active').execute();
  await endOffers(tx, offer, 'consumed', at);
  return true;
}

/** active → withdrawn by the seller. */
export async function withdrawCounter(tx: Tx, id: string, at: number): Promise<boolean> {
  const res = await tx.updateTable('offer_counters').set({ state: 'withdrawn', updated_at: at }).where('id', '=', id).where('state', '=', 'active').executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
