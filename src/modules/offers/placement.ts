/**
 * Placing bids: the cross product of funding slots and targets, in one transaction.
 *
 * Both ways in share this: `POST /v1/offers` names outpoints that already exist on chain (or in
 * the mempool); `POST /v1/funded-offers` names outputs of a funding transaction it relays first
 * (funded.ts). Everything that can refuse is checked before anything is written (and, for funded
 * offers, before anything is relayed): the rows limit, the targets, the slots. The write itself
 * can still lose a race for an outpoint (the open-slot unique index): then 409 state_changed
 * and nothing is placed — never two owners of one slot.
 */
import crypto from 'node:crypto';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { isUniqueViolation } from '../../store/db.js';
import { ApiError, invalid } from '../../http/errors.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { platformFee } from '../listings/index.js';
import { createPlacement, endOffers } from './lifecycle.js';
import { checkOfferExpiry, checkOfferPrice, levelKey, MAX_OFFER_ROWS, newOfferId, priceOfSlot } from './rules.js';
import { resolveTargets, type ResolvedTarget, type TargetBody } from './targets.js';
import type { OfferTables } from './tables.js';
import { placementResult, type PlacementResult } from './view.js';
import { counterFor, takeInPlacement } from './counters.js';
import { recordFundingInputs, type FundingInput } from './funding-inputs.js';

export interface PlacementBody {
  bids: Array<{ txid?: string; vout: number }>;
  targets: TargetBody[];
  expires_at: number;
  receive_address?: string;
  delivery_mode?: 'detached' | 'attached';
}

/** One funding slot as the placement checked it. */
export interface CheckedSlot {
  txid: string;
  vout: number;
  value_sats: number;
}

export interface PlacementPlan {
  /** The inputs of a funding transaction still in the mempool, kept with the placement (funding-inputs.ts). */
  fundingInputs?: FundingInput[];
  bidder: string;
  price: number;
  fee: number;
  mode: 'detached' | 'attached';
  receive: string;
  expiresAt: number;
  targets: ResolvedTarget[];
  slots: CheckedSlot[];
  fundingTxid: string | null;
  requestSha256: string;
  /** The seller's counter this placement answers (one exact-unit target at the counter's price). */
  counter: Awaited<ReturnType<typeof counterFor>>;
}

/** The checks that need no chain read of the slots: sizes, addresses, expiry, targets. */
export async function planPlacement(ctx: Context, bidder: string, body: PlacementBody, slots: CheckedSlot[], fundingTxid: string | null): Promise<PlacementPlan> {
  const now = nowSeconds(ctx.clock);
  const rows = body.bids.length * body.targets.length;
  if (rows > MAX_OFFER_ROWS) throw invalid(`${body.bids.length} bids × ${body.targets.length} targets = ${rows} offers; at most ${MAX_OFFER_ROWS} per placement`, { field: 'body.targets' });
  const dup = body.bids.findIndex((b, i) => body.bids.findIndex((c) => (c.txid ?? fundingTxid) === (b.txid ?? fundingTxid) && c.vout === b.vout) !== i);
  if (dup !== -1) throw invalid(`bids[${dup}] names an outpoint twice`, { field: `body.bids[${dup}]` });
  checkOfferExpiry(body.expires_at, now);
  const mode = body.delivery_mode ?? 'detached';
  const receive = requireAddressRole(body.receive_address ?? bidder, mode === 'attached' ? 'signing' : 'delivery', ctx.config.NETWORK, 'body.receive_address');

  const values = new Set(slots.map((s) => s.value_sats));
  if (values.size !== 1) throw invalid('every bid output must hold the same value: one placement is one price', { field: 'body.bids' });
  const price = priceOfSlot(slots[0]!.value_sats, mode);
  checkOfferPrice(price, 'the bid outputs');
  const targets = await resolveTargets(ctx, bidder, body.targets);
  const requestSha256 = crypto
    .createHash('sha256')
    .update(JSON.stringify({ bidder, fundingTxid, slots: slots.map((s) => [s.txid, s.vout]), targets, expires: body.expires_at, mode, receive }))
    .digest('hex');
  const only = targets.length === 1 ? targets[0]!.target_outpoint : null;
  const counter = only ? await counterFor(ctx, bidder, `${only.txid}:${only.vout}`, price) : null;
  return { bidder, price, fee: platformFee(ctx.config, price), mode, receive, expiresAt: body.expires_at, targets, slots, fundingTxid, requestSha256, counter };
}

/** An identical placement already made (same bidder and normalized request): its result. */
export async function earlierPlacement(ctx: Context, plan: Pick<PlacementPlan, 'bidder' | 'requestSha256'>): Promise<PlacementResult | null> {
  const row = await ctx.store.db.selectFrom('offer_placements').selectAll().where('bidder', '=', plan.bidder).where('request_sha256', '=', plan.requestSha256).executeTakeFirst();
  return row ? placementResult(ctx.store.db, row) : null;
}

/**
 * Outpoints that already back open offers: an expired-only slot is closed on the way (its
 * offers end expired, as the watcher would have ended them); a live one refuses the placement.
 */
export async function refuseOpenSlots(ctx: Context, slots: CheckedSlot[]): Promise<void> {
  const now = nowSeconds(ctx.clock);
  const keys = slots.map((s) => `${s.txid}:${s.vout}`);
  const open = await ctx.store.db.selectFrom('offer_slots').selectAll().where('outpoint', 'in', keys).where('state', '=', 'open').execute();
  for (const s of open) {
    const live = await ctx.store.db.selectFrom('offers').selectAll().where('slot_id', '=', s.id).where('state', '=', 'active').execute();
    if (live.some((o) => o.expires_at > now)) {
      throw new ApiError('state_changed', `outpoint ${s.outpoint} already backs live offers (placement ${s.placement_id}); cancel them first or use another output`, { outpoint: s.outpoint });
    }
    await ctx.store.db.transaction().execute((tx) => endOffers(tx, live, 'expired', now));
  }
}

/** Writes the plan: slots, offers and the placement, in one transaction. */
export async function place(ctx: Context, plan: PlacementPlan): Promise<PlacementResult> {
  const now = nowSeconds(ctx.clock);
  const placement: OfferTables['offer_placements'] = {
    id: newOfferId('pl'),
    bidder: plan.bidder,
    price_sats: plan.price,
    platform_fee_sats: plan.fee,
    delivery_mode: plan.mode,
    receive_address: plan.receive,
    expires_at: plan.expiresAt,
    targets: JSON.stringify(plan.targets),
    funding_txid: plan.fundingTxid,
    request_sha256: plan.requestSha256,
    created_at: now,
  };
  const slots: OfferTables['offer_slots'][] = plan.slots.map((s) => ({
    id: newOfferId('fs'),
    placement_id: placement.id,
    bidder: plan.bidder,
    txid: s.txid,
    vout: s.vout,
    outpoint: `${s.txid}:${s.vout}`,
    value_sats: s.value_sats,
    state: 'open',
    spent_txid: null,
    spent_height: null,
    created_at: now,
    updated_at: now,
  }));
  const offers: OfferTables['offers'][] = slots.flatMap((s) =>
    plan.targets.map((t, i) => ({
      id: newOfferId('of'),
      placement_id: placement.id,
      slot_id: s.id,
      target_index: i,
      bidder: plan.bidder,
      bid_txid: s.txid,
      bid_vout: s.vout,
      price_sats: plan.price,
      platform_fee_sats: plan.fee,
      scope: t.scope,
      kind: t.kind,
      asset: t.asset,
      collection: t.collection,
      max_supply_units: t.max_supply_units,
      min_supply_units: t.min_supply_units,
      issued_year: t.issued_year,
      series: t.series,
      artist: t.artist,
      level_key: levelKey(t),
      target_txid: t.target_outpoint?.txid ?? null,
      target_vout: t.target_outpoint?.vout ?? null,
      delivery_mode: plan.mode,
      receive_address: plan.receive,
      state: 'active',
      end_reason: null,
      expires_at: plan.expiresAt,
      created_at: now,
      updated_at: now,
      ended_at: null,
    })),
  );
  try {
    await ctx.store.db.transaction().execute(async (tx) => {
      await createPlacement(tx, placement, slots, offers);
      await recordFundingInputs(tx, plan.fundingInputs ?? [], now);
      if (plan.counter) await takeInPlacement(tx, plan.counter, placement.id, now);
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new ApiError('state_changed', 'a bid outpoint was placed by another request meanwhile; nothing was placed', {});
    throw e;
  }
  return placementResult(ctx.store.db, placement);
}
