/**
 * How collection offers read: the alternative (policy offer) record and the funding set record.
 *
 * `status` of an alternative: `active`, `filled`, `cancelled` (soft cancel), `expired`, `retired`
 * (a sibling filled) or `invalid` (its funding died on chain: a funding input was spent — the
 * hard cancel — or the filling package failed). `estimated_seller_net_sats` is what a seller
 * would net at the current fee rate: a quote, not a promise. `bidder_history` counts the
 * bidder's collection-offer record so a seller can judge a bidder.
 */
import type { Db } from '../../store/db.js';
import { POLICY_PROTOCOL_VERSION } from '../../counterparty/policy-offer.js';
import { policyTargetOf } from '../market/index.js';
import type { FundingSetRow, PolicyOfferRow } from './lifecycle.js';

export interface BidderHistory {
  offers_placed: number;
  offers_filled: number;
  offers_cancelled: number;
  funding_sets_invalidated: number;
}

export function offerStatus(o: Pick<PolicyOfferRow, 'state' | 'end_reason' | 'expires_at'>, now: number) {
  if (o.state === 'active' && Number(o.expires_at) <= now) return 'expired';
  if (o.state === 'retired' && o.end_reason !== 'superseded') return 'invalid';
  return o.state;
}

export async function bidderHistories(db: Db, bidders: string[]): Promise<Map<string, BidderHistory>> {
  const out = new Map<string, BidderHistory>();
  if (!bidders.length) return out;
  const rows = await db.selectFrom('policy_offers').select(['bidder', 'state', 'end_reason', (eb) => eb.fn.countAll<number>().as('n')]).where('bidder', 'in', bidders).groupBy(['bidder', 'state', 'end_reason']).execute();
  const sets = await db.selectFrom('policy_funding_sets').select(['bidder', (eb) => eb.fn.countAll<number>().as('n')]).where('bidder', 'in', bidders).where('state', '=', 'invalid').where('end_reason', '=', 'funding_spent').groupBy('bidder').execute();
  for (const b of bidders) out.set(b, { offers_placed: 0, offers_filled: 0, offers_cancelled: 0, funding_sets_invalidated: 0 });
  for (const r of rows) {
    const h = out.get(r.bidder)!;
    h.offers_placed += Number(r.n);
    if (r.state === 'filled') h.offers_filled += Number(r.n);
    if (r.state === 'cancelled' || (r.state === 'retired' && r.end_reason === 'funding_spent')) h.offers_cancelled += Number(r.n);
  }
  for (const s of sets) out.get(s.bidder)!.funding_sets_invalidated = Number(s.n);
  return out;
}

export function fundingOutpoints(set: Pick<FundingSetRow, 'funding_json'>): Array<{ txid: string; vout: number; value_sats: number }> {
  return JSON.parse(set.funding_json) as Array<{ txid: string; vout: number; value_sats: number }>;
}

export function offerView(o: PolicyOfferRow, set: FundingSetRow, now: number, sellerNet: number | null, history: BidderHistory | undefined) {
  return {
    id: o.id,
    protocol_version: POLICY_PROTOCOL_VERSION,
    funding_set_id: o.funding_set_id,
    kind: o.kind,
    scope: o.scope,
    target: policyTargetOf(o),
    status: offerStatus(o, now),
    end_reason: o.end_reason,
    bidder: o.bidder,
    delivery_address: set.delivery_address,
    price_sats: Number(o.price_sats),
    estimated_seller_net_sats: sellerNet,
    parent_txid: set.parent_txid,
    escrow_value_sats: Number(set.escrow_value_sats),
    filled_txid: o.filled_txid,
    created_at: Number(o.created_at),
    expires_at: Number(o.expires_at),
    ended_at: o.ended_at === null ? null : Number(o.ended_at),
    marketplace_expires_at: Number(o.expires_at),
    bitcoin_invalidation: { type: 'spend_funding_input' as const, outpoints: fundingOutpoints(set).map(({ txid, vout }) => ({ txid, vout })) },
    bidder_history: history ?? { offers_placed: 0, offers_filled: 0, offers_cancelled: 0, funding_sets_invalidated: 0 },
  };
}

export function fundingSetView(set: FundingSetRow) {
  // Every alternative cancelled: the first recorded time; the receipts are per alternative (a set cancelled whole before cancels named one kept its one receipt here).
  const stored = set.cancel_json ? (JSON.parse(set.cancel_json) as { recorded_at: number; receipt?: { key_version: number; pubkey: string; message: string; signature: string } | null }) : null;
  const cancel = stored ? { recorded_at: stored.recorded_at, receipt: stored.receipt ?? null } : null;
  return {
    funding_set_id: set.id,
    protocol_version: POLICY_PROTOCOL_VERSION,
    status: set.state,
    end_reason: set.end_reason,
    bidder: set.bidder,
    delivery_address: set.delivery_address,
    parent_txid: set.parent_txid,
    escrow_value_sats: Number(set.escrow_value_sats),
    max_price_sats: Number(set.max_price_sats),
    funding_inputs: fundingOutpoints(set),
    anchor: { outpoint: set.anchor_outpoint, value_sats: Number(set.anchor_value_sats) },
    market_key: { version: Number(set.market_key_version), pubkey: set.market_key },
    refund_csv_blocks: Number(set.refund_csv_blocks),
    cancel,
    spent_txid: set.spent_txid,
    created_at: Number(set.created_at),
    expires_at: Number(set.expires_at),
  };
}
