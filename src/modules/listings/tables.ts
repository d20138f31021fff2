/**
 * The seller's side: listing drafts (preflights and attach templates), listings, and the owner
 * events the seller feed reads. Times are unix seconds; satoshis are integers (bigint in
 * PostgreSQL); Counterparty quantities are decimal strings.
 */
import type { ListingSubtype } from '../../counterparty/cosigned-listing.js';

/** Stored draft statuses. `expired` and `withdrawn` are derived at read time (see draft-view.ts). */
export type DraftStatus =
  | 'awaiting_attach_signature'
  | 'broadcasting'
  | 'awaiting_indexer'
  | 'prepared'
  | 'ready'
  | 'completed'
  | 'failed';

/** `listing`: a listing preflight. `prepare`: an attach template (a unit prepared, not listed). */
export type DraftPurpose = 'listing' | 'prepare';

/** Listing states (the spec leaves the names to the market). */
export type ListingState = 'pending' | 'active' | 'reserved' | 'sold' | 'ended' | 'exposed';
/** `rotated`: the seller moved an exposed unit to a fresh output of its own (rotation.ts). */
export type EndReason = 'owner' | 'expired' | 'invalid' | 'rotated';
/**
 * Why a listing is exposed: its signed half was broadcast in a checkout that then lost its
 * inputs to another spend (`checkout_replaced`: replaced or evicted from mempools after
 * relay), or whose broadcast outcome was unknown before it was refused
 * (`checkout_conflicted`, `checkout_rejected`): the half may be in anyone's hands.
 */
export type ExposureReason = 'checkout_replaced' | 'checkout_conflicted' | 'checkout_rejected';

export interface ListingTables {
  listing_drafts: {
    id: string;
    operation_id: string;
    purpose: DraftPurpose;
    seller: string;
    asset_source: string;
    asset: string;
    quantity_raw: string;
    mode: 'reuse' | 'attach';
    status: DraftStatus;
    idempotency_key: string | null;
    /** sha256 of the canonical request body, to tell a repeat from a conflicting reuse of the key. */
    request_hash: string;
    /** The asset UTXO; null until known (a P2PKH source's attach txid is known only once signed). */
    asset_txid: string | null;
    asset_vout: number | null;
    /** `txid:vout` of the asset UTXO, for spend lookups. */
    asset_outpoint: string | null;
    utxo_value_sats: number | null;
    /** The unsigned attach PSBT (hex) and its signers (JSON), mode=attach only. */
    attach_psbt: string | null;
    attach_signers: string | null;
    /** JSON array of the `txid:vout` the attach spends. */
    attach_inputs: string | null;
    expected_txid: string | null;
    /** The txid of the signed attach once submitted. */
    attach_txid: string | null;
    fee_rate: number | null;
    network_fee_sats: number;
    protocol_fee_raw: string;
    protocol_fee_actual_raw: string | null;
    protocol_fee_block: number | null;
    protocol_fee_charged_at: number | null;
    /** The draft's ask (null until set); the listing template is built from it. */
    price_sats: number | null;
    /** Optional BIP-86 internal key of a P2TR seller, copied into the listing template. */
    seller_tap_key: string | null;
    listing_id: string | null;
    /** `plain` or `cosigned` (the unit is attached to the co-signed output; src/counterparty/cosigned-listing.ts). */
    protocol_subtype: ListingSubtype;
    /** Co-signed: the market signer's x-only key (hex) and its version, fixed when the draft was made. */
    cosign_market_key: string | null;
    cosign_key_version: number | null;
    /** 1 once a reorg reopened the attach of a completed draft: it reads as `withdrawn`. */
    reopened: number;
    last_error: string | null;
    /** Block that confirmed (or invalidated) the attach, for reorg rollback. */
    confirmed_height: number | null;
    confirmed_hash: string | null;
    /** Block that spent the asset UTXO of a ready/prepared draft (which then failed). */
    spent_height: number | null;
    bitcoin_confirmed_at: number | null;
    expires_at: number;
    created_at: number;
    updated_at: number;
  };
  listings: {
    id: string;
    operation_id: string;
    draft_id: string;
    seller: string;
    asset: string;
    quantity_raw: string;
    utxo_txid: string;
    utxo_vout: number;
    /** `txid:vout`: the key claims, spends and the one-live-listing-per-outpoint index use. */
    utxo_outpoint: string;
    utxo_value_sats: number;
    price_sats: number;
    state: ListingState;
    end_reason: EndReason | null;
    /** The seller's signed SINGLE|ANYONECANPAY half (PSBT hex). Private; NULL once the listing ends. */
    signed_psbt: string | null;
    /** Bumped by every reprice so a checkout quote can tell the listing changed. */
    version: number;
    /** Marketplace expiry (unix s); the signature itself has no Bitcoin-level expiry. */
    expires_at: number;
    created_at: number;
    updated_at: number;
    activated_at: number | null;
    ended_at: number | null;
    /**
     * mode=reuse: the height of the block that confirmed the asset UTXO, null while a reorg has
     * it unconfirmed (the listing then waits `pending`). Null for attach listings, which follow
     * their draft's attach (confirmed_height) instead.
     */
    utxo_height: number | null;
    /**
     * The block whose spend of the asset UTXO ended the listing `invalid`. Until that spend has
     * 3 confirmations the signed half is kept (private, unusable: the listing is ended) so a reorg
     * of that block can restore the listing; then it is wiped.
     */
    spent_height: number | null;
    protocol_subtype: ListingSubtype;
    /** Co-signed: the output's keys (seller = internal key), copied from the draft. */
    cosign_seller_key: string | null;
    cosign_market_key: string | null;
    cosign_key_version: number | null;
    /** When the seller's half left the market's hands in a failed checkout (state `exposed`). */
    exposed_at: number | null;
    exposure_reason: ExposureReason | null;
  };
  /** The owner feed's rows (GET /v1/address/{address}/events reads them). */
  owner_events: {
    /** Stable hash of (kind, subject id): a repeat of the same event is the same row. */
    event_id: string;
    address: string;
    role: 'seller' | 'buyer' | 'bidder';
    kind: string;
    at: number;
    listing_id: string | null;
    asset: string | null;
    price_sats: number | null;
    txid: string | null;
    status: string;
    /** JSON object of the other fields the event carries (asset_utxo, end reason, expires_at). */
    data: string;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends ListingTables {}
}
