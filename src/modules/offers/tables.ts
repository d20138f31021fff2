/**
 * Bids. A placement is one request: N funding slots × M targets = N·M offers.
 * A funding slot is a bitcoin output paying the bidder's own signing address exactly the
 * offer price (+330 sats for attached delivery): the money that backs the bid. The offers over
 * one slot are alternatives (capacity 1 per slot): the first fill of a slot retires its
 * siblings, and a spend of the slot anywhere else retires them all.
 *
 * Offer `state` (one owner: lifecycle.ts):
 *   active → filled (a seller accepted it; issue-12 flows) | cancelled (owner)
 *          | retired (a sibling filled: reason superseded; the slot spent elsewhere: reason invalid)
 *          | consumed (the bidder took a counter over it)
 *   expired is derived at read time from `expires_at` (like listings) and written when met.
 *   A slot spend reorged out restores the offers it retired, until the spend has 3 confirmations.
 */
export type OfferState = 'active' | 'filled' | 'cancelled' | 'expired' | 'retired' | 'consumed';
export type OfferEndReason = 'cancelled' | 'expired' | 'superseded' | 'invalid' | 'filled' | 'consumed';
export type SlotState = 'open' | 'spent' | 'closed';

export interface OfferTables {
  offer_placements: {
    id: string;
    bidder: string;
    price_sats: number;
    platform_fee_sats: number;
    delivery_mode: 'detached' | 'attached';
    /** Where the unit goes: the detach destination (detached) or the 330-sat output's address (attached). */
    receive_address: string;
    expires_at: number;
    /** JSON array of the normalized targets, in request order. */
    targets: string;
    /** The funding transaction's txid for `POST /v1/funded-offers`; null for `POST /v1/offers`. */
    funding_txid: string | null;
    /** sha256 of the normalized request: an identical repeat answers the same placement. */
    request_sha256: string;
    created_at: number;
  };
  offer_slots: {
    id: string;
    placement_id: string;
    bidder: string;
    txid: string;
    vout: number;
    /** `txid:vout`; at most one open slot per outpoint (unique partial index). */
    outpoint: string;
    value_sats: number;
    /**
     * open: backs live offers; spent: the indexer saw it spent (spent_txid, spent_height), or an
     * accept journaled its parent as spent_txid (spent_height null until the watcher sees it in a block);
     * closed: every offer over it ended without a spend (cancel, expiry) — the outpoint may back a new placement.
     */
    state: SlotState;
    spent_txid: string | null;
    spent_height: number | null;
    created_at: number;
    updated_at: number;
  };
  /**
   * The inputs of a funding transaction placed before it confirmed (funding-inputs.ts): a block
   * spending one by another transaction replaced the funding, and its slots end. `settled_height`:
   * the block that spent them (the funding itself, or its replacement); kept until it is final.
   */
  offer_funding_inputs: {
    funding_txid: string;
    outpoint: string;
    settled_height: number | null;
    created_at: number;
  };
  offers: {
    id: string;
    placement_id: string;
    slot_id: string;
    /** Which of the placement's targets (request order) this offer is. */
    target_index: number;
    bidder: string;
    /** The slot's outpoint, copied so the book and the watcher need no join. */
    bid_txid: string;
    bid_vout: number;
    price_sats: number;
    platform_fee_sats: number;
    scope: 'asset' | 'collection';
    kind: 'asset' | 'collection' | 'trait';
    asset: string | null;
    collection: string | null;
    max_supply_units: number | null;
    min_supply_units: number | null;
    issued_year: number | null;
    series: number | null;
    artist: string | null;
    /** The book level an offer belongs to besides its price: its normalized target (rules.levelKey). */
    level_key: string;
    /** An exact asset outpoint (asset scope only): private, never in public reads. */
    target_txid: string | null;
    target_vout: number | null;
    delivery_mode: 'detached' | 'attached';
    receive_address: string;
    state: OfferState;
    end_reason: OfferEndReason | null;
    expires_at: number;
    created_at: number;
    updated_at: number;
    ended_at: number | null;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends OfferTables {}
}
