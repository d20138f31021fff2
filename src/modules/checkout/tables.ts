/**
 * Checkout: quotes (which reserve nothing) and the operation a completed quote becomes.
 * Times are unix seconds; satoshis are integers (bigint in PostgreSQL).
 */

/** `quoted` until completed; `expired` is derived at read time; the rest follow the settlement. */
export type CheckoutStatus = 'quoted' | 'completed';

export interface CheckoutTables {
  checkout_quotes: {
    id: string;
    /** The session address that asked for the quote: only it can complete or read it. */
    buyer_address: string;
    delivery_address: string;
    delivery_mode: 'detached' | 'attached';
    fee_rate: number;
    /**
     * JSON array of the quoted lines in PSBT pair order (input/output k = index + 1): {listing_id,
     * version, price_sats, platform_fee_sats, utxo_outpoint, utxo_value_sats, asset,
     * asset_longname, quantity_raw, seller}. `version` is the listing version the quote saw.
     */
    lines: string;
    /** The unsigned checkout PSBT (hex); the completion is compared against it. */
    psbt: string;
    /** JSON array of the buyer input indexes the wallet signs. */
    inputs_to_sign: string;
    /** JSON array of the buyer's funding outpoints (`txid:vout`). */
    funding: string;
    expected_txid: string;
    price_sats: number;
    platform_fee_sats: number;
    network_fee_sats: number;
    status: CheckoutStatus;
    /** The journaled settlement once completed (null before). */
    settlement_id: string | null;
    /** sha256 (hex) of the signed PSBT bytes that completed the quote: the same bytes again are a repeat. */
    signed_sha256: string | null;
    completed_at: number | null;
    expires_at: number;
    created_at: number;
    updated_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends CheckoutTables {}
}
