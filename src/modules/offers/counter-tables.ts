/**
 * Counters: a seller answers a bid on its asset with a higher price for one exact unit. Private
 * between the two: never in public reads or analytics.
 *
 * `state` (one owner: counters.ts): active → taken (the bidder funded a slot at the counter
 * price naming the unit: the original offer is consumed) | withdrawn (the seller) | retired (a
 * confirmed block spent the unit: it can no longer be taken; a disconnected block restores it);
 * expired is derived at read time from `expires_at`.
 */
export type CounterState = 'active' | 'taken' | 'withdrawn' | 'retired';

export interface CounterTables {
  offer_counters: {
    id: string;
    /** The offer countered (`counter_of`). */
    offer_id: string;
    bidder: string;
    seller: string;
    asset: string;
    asset_txid: string;
    asset_vout: number;
    asset_outpoint: string;
    price_sats: number;
    offer_price_sats: number;
    state: CounterState;
    /** The placement that took it. */
    taken_by: string | null;
    /** Retired: the transaction that spent the unit, and its block's height (migration 096). */
    retired_txid: string | null;
    retired_height: number | null;
    expires_at: number;
    created_at: number;
    updated_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends CounterTables {}
}
