/**
 * Ending bids by their owner, and the review a wallet reads afterwards. Cancelling never
 * unlocks coins on Bitcoin: a bid stays spendable by an exact authorization signed over its
 * slot until the slot is spent, so the review says which funding outpoints to spend to make
 * the cancelled bids dead on chain, and which are still committed (a live sibling offer, or a
 * settlement in flight over the slot).
 */
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, notFound } from '../../http/errors.js';
import { retryDeadlocks } from '../../store/deadlock.js';
import { endOffers } from './lifecycle.js';
import { offerStatus } from './rules.js';
import type { OfferRow, OfferStore } from './store.js';

export interface CancelOutcome {
  offer_id: string;
  ok: boolean;
  status: string;
  code?: 'state_changed';
}

/** Cancels the named offers of `bidder` (all of them are checked for ownership first: a foreign or missing id refuses the batch with 404). */
export async function cancelOffers(ctx: Context, store: OfferStore, bidder: string, ids: string[]): Promise<CancelOutcome[]> {
  const rows = await store.offers(ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.find((id) => byId.get(id)?.bidder !== bidder);
  if (missing) throw new ApiError('not_found', `No such offer ${missing}`, { offer_id: missing });
  const now = nowSeconds(ctx.clock);
  // A deadlock's victim (another kind of transaction meeting these offers in another order) is
  // run again whole: it rolled back, and its guarded updates then read what the survivor did.
  const live = rows.filter((r) => offerStatus(r, now) === 'active');
  const ended = await retryDeadlocks(() => ctx.store.db.transaction().execute((tx) => endOffers(tx, live, 'cancelled', now)));
  const done = new Set(ended.map((o) => o.id));
  const after = await store.offers(ids);
  const now2 = new Map(after.map((r) => [r.id, r]));
  return ids.map((id) => {
    const r = now2.get(id)!;
    return done.has(id) ? { offer_id: id, ok: true, status: 'cancelled' } : { offer_id: id, ok: false, status: offerStatus(r, now), code: 'state_changed' as const };
  });
}

export async function cancelPlacement(ctx: Context, store: OfferStore, bidder: string, placementId: string): Promise<CancelOutcome[]> {
  const p = await store.placement(placementId);
  if (!p || p.bidder !== bidder) throw notFound('offer placement');
  const offers = await store.offersOfPlacement(p.id);
  return cancelOffers(ctx, store, bidder, offers.map((o) => o.id));
}

/** `POST /v1/offer-cancellations/review`: read-only; every offer must be the bidder's and already cancelled. */
export async function reviewCancellations(ctx: Context, store: OfferStore, bidder: string, ids: string[]) {
  const rows = await store.offers(ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const foreign = ids.find((id) => byId.get(id)?.bidder !== bidder);
  if (foreign) throw new ApiError('not_found', `No such offer ${foreign}`, { offer_id: foreign });
  const notCancelled = rows.find((r) => r.state !== 'cancelled');
  if (notCancelled) {
    throw new ApiError('state_changed', `offer ${notCancelled.id} is ${offerStatus(notCancelled, nowSeconds(ctx.clock))}, not cancelled; the review covers cancelled offers`, { offer_id: notCancelled.id });
  }
  const now = nowSeconds(ctx.clock);
  const slots = [...new Map(rows.map((r) => [r.slot_id, r])).values()];
  const outpoints = slots.map((r) => `${r.bid_txid}:${r.bid_vout}`);
  const claimed = await ctx.journal.claimed(ctx.store.db, outpoints);
  const coins = [];
  for (const r of slots) {
    const live = await ctx.store.db.selectFrom('offers').select(['id', 'expires_at', 'state']).where('slot_id', '=', r.slot_id).where('state', '=', 'active').execute();
    const siblings = live.some((o) => o.expires_at > now);
    coins.push({ outpoint: { txid: r.bid_txid, vout: r.bid_vout }, stillCommitted: siblings || claimed.has(`${r.bid_txid}:${r.bid_vout}`) });
  }
  return { standard: 'counterparty-marketplace' as const, action: 'cancel_offers' as const, offerIds: ids, coins };
}

export type { OfferRow };
