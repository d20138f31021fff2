/**
 * The one owner of counter state (counter-tables.ts): create, take (with the original offer consumed),
 * withdraw. It sits with the offers because a counter is answered by a placement: the placement's
 * transaction takes it and consumes the offer it countered (the counters area makes and withdraws them).
 */
import type { Context } from '../../context.js';
import type { Tx } from '../../store/db.js';
import { nowSeconds } from '../../clock.js';
import { ApiError } from '../../http/errors.js';
import { endOffers } from './lifecycle.js';
import type { CounterTables } from './counter-tables.js';

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

/**
 * The counter an exact-unit placement takes: one made to `bidder` on that unit at `price`.
 * Checked before the placement is written (an expired one is 410 expired: the bidder was
 * answering a counter that no longer stands).
 */
export async function counterFor(ctx: Context, bidder: string, outpoint: string, price: number): Promise<CounterRow | null> {
  const rows = await ctx.store.db.selectFrom('offer_counters').selectAll().where('asset_outpoint', '=', outpoint).where('bidder', '=', bidder).where('state', '=', 'active').where('price_sats', '=', price).execute();
  const now = nowSeconds(ctx.clock);
  const live = rows.find((c) => c.expires_at > now);
  if (live) return live;
  if (rows.length) throw new ApiError('expired', 'the counter at this price expired; ask the seller for a new one');
  return null;
}

/** In the placement's transaction: take the counter (the original offer is consumed). */
export async function takeInPlacement(tx: Tx, counter: CounterRow, placementId: string, at: number): Promise<void> {
  if (!(await takeCounter(tx, counter, placementId, at))) throw new ApiError('state_changed', 'the counter was withdrawn or expired meanwhile; nothing was placed', { counter_id: counter.id });
}
