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
 * active → retired: a confirmed block spent the units of these counters (`spent`: outpoint →
 * spending txid). Whatever spent it (the holder moved it, a checkout or an accept took it), the
 * bidder can no longer take it. Counters are private: no event (the feeds never carry them).
 */
export async function retireMovedCounters(tx: Tx, spent: ReadonlyMap<string, string>, height: number, at: number): Promise<void> {
  const keys = [...spent.keys()];
  for (let i = 0; i < keys.length; i += 500) {
    const part = keys.slice(i, i + 500);
    const moved = await tx.selectFrom('offer_counters').select(['id', 'asset_outpoint']).where('asset_outpoint', 'in', part).where('state', '=', 'active').execute();
    for (const c of moved) {
      await tx
        .updateTable('offer_counters')
        .set({ state: 'retired', retired_txid: spent.get(c.asset_outpoint)!, retired_height: height, updated_at: at })
        .where('id', '=', c.id)
        .where('state', '=', 'active')
        .execute();
    }
  }
}

/** retired → active: the blocks from `fromHeight` up were disconnected, so their spends of these units are undone (expiry still applies at read time). */
export async function restoreCounters(tx: Tx, fromHeight: number, at: number): Promise<void> {
  await tx
    .updateTable('offer_counters')
    .set({ state: 'active', retired_txid: null, retired_height: null, updated_at: at })
    .where('state', '=', 'retired')
    .where('retired_height', '>=', fromHeight)
    .execute();
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
