/**
 * Collection (policy) offers, `funded_policy_offer_v1` (src/counterparty/policy-offer.ts for the
 * transactions). One owner of every state below: lifecycle.ts (anchors: anchors.ts).
 *
 * A funding set is one parent: the bidder's funding inputs and one market anchor into the escrow.
 *   awaiting_signatures → open        placement verified the parent signatures and every pre-signature
 *   awaiting_signatures → lapsed      the preflight expired unplaced (its anchor is free again)
 *   open → filled                     an accept was co-signed and journaled (back to open never: the
 *                                     signer signs one child per parent; a released package ends it invalid)
 *   open → cancelled                  the soft cancel of its last live alternative recorded by the signer
                                      (every alternative cancelled: the anchor goes to the sweep)
 *   open | cancelled → invalid        a funding input was spent elsewhere (hard cancel), or the filling package failed
 *   open → expired                    no alternative is live, and not every one was cancelled (some expired)
 *
 * An alternative (policy offer) is one target and price over its funding set's escrow:
 *   active → filled | cancelled | expired | retired (a sibling filled; or the funding died: status invalid)
 * A soft cancel ends one alternative; its siblings stay on the book and the set stays open while any is live.
 */
import type { PolicyTarget } from '../market/index.js';

export type FundingSetState = 'awaiting_signatures' | 'open' | 'filled' | 'cancelled' | 'invalid' | 'expired' | 'lapsed';
export type PolicyOfferState = 'active' | 'filled' | 'cancelled' | 'expired' | 'retired';
export type AnchorState = 'pending' | 'free' | 'reserved' | 'spent' | 'retired' | 'sweeping';

export interface PolicyOfferTables {
  policy_funding_sets: {
    id: string;
    bidder: string;
    /** x-only hex: the key of the escrow's leaves (the bidder's pre-signatures and refund). */
    bidder_key: string;
    delivery_address: string;
    parent_txid: string;
    /** The unsigned parent (PSBT hex with every prevout). */
    parent_psbt: string;
    /** The parent with the bidder's verified funding signatures (private; the anchor is signed only on accept). */
    parent_signed_psbt: string | null;
    parent_vsize: number;
    /** [{txid, vout, value_sats}] in input order. */
    funding_json: string;
    anchor_outpoint: string;
    anchor_value_sats: number;
    escrow_value_sats: number;
    max_price_sats: number;
    escrow_script: string;
    market_key: string;
    market_key_version: number;
    refund_csv_blocks: number;
    /** The preflight's normalized alternatives [{target, price_sats}]. */
    alternatives_json: string;
    state: FundingSetState;
    /** Placement idempotency: sha256 of the canonical placement body. */
    request_sha256: string | null;
    /** Once every alternative is cancelled: {recorded_at} of the first recorded cancellation (the receipts are on the alternatives). */
    cancel_json: string | null;
    end_reason: string | null;
    spent_txid: string | null;
    spent_height: number | null;
    settlement_id: string | null;
    accept_id: string | null;
    preflight_expires_at: number;
    /** The requesting IP's bucket (limits/ip-key.ts) of the preflight: its anchor hold counts against that IP (holds.ts). */
    preflight_ip: string | null;
    expires_at: number;
    created_at: number;
    updated_at: number;
  };
  policy_funding_inputs: {
    outpoint: string;
    funding_set_id: string;
  };
  /** An alternative: its normalized policy (market/policy-predicate.ts) and price over the set's escrow. */
  policy_offers: PolicyTarget & {
    id: string;
    funding_set_id: string;
    alt_index: number;
    bidder: string;
    level_key: string;
    price_sats: number;
    /** The bidder's SINGLE|ANYONECANPAY signature over the escrow and its delivery output (65 bytes hex; private). */
    presignature: string;
    state: PolicyOfferState;
    /** The signer's soft-cancel answer for this alternative (recorded_at, receipt), public once cancelled. */
    cancel_json: string | null;
    end_reason: string | null;
    filled_txid: string | null;
    ended_at: number | null;
    created_at: number;
    expires_at: number;
    updated_at: number;
  };
  policy_accepts: {
    id: string;
    funding_set_id: string;
    offer_id: string;
    seller: string;
    asset: string;
    quantity_raw: string;
    asset_outpoint: string;
    utxo_value_sats: number;
    /** The unsigned child (PSBT hex) and its txid. */
    psbt: string;
    expected_txid: string;
    price_sats: number;
    platform_fee_sats: number;
    network_fee_sats: number;
    seller_proceeds_sats: number;
    fee_rate: number;
    parent_vsize: number;
    child_vsize: number;
    state: 'quoted' | 'accepted';
    settlement_id: string | null;
    listing_id: string | null;
    created_at: number;
    expires_at: number;
    updated_at: number;
  };
  market_anchors: {
    outpoint: string;
    txid: string;
    vout: number;
    value_sats: number;
    state: AnchorState;
    funding_set_id: string | null;
    reserved_until: number | null;
    created_at: number;
    updated_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends PolicyOfferTables {}
}
