/**
 * Trade kernel: owns the fills table.
 *
 * Fills: one row per unit sold, written in the same transaction that journals and claims the
 * settlement. Its state follows the settlement: `pending` while it is journaled or relayed,
 * `confirmed` once the indexer sees it in a block (a reorg returns it to `pending`), `dropped`
 * when the settlement was released (rejected or conflicted). Dropped fills are kept for the
 * operator and excluded from every public read.
 */
export type FillState = 'pending' | 'confirmed' | 'dropped';

export interface FillTables {
  fills: {
    /** Stable id of the sale: `fill_` + hash of (txid, ref_id). */
    id: string;
    settlement_id: string;
    txid: string;
    /** `listing` (checkout) or `offer` (the offer flows). */
    kind: 'listing' | 'offer';
    /** The listing id (kind listing) or the offer id (kind offer). */
    ref_id: string;
    asset: string;
    asset_longname: string | null;
    quantity_raw: string;
    seller: string;
    /** The delivery address: who receives the asset (the spec's fill `buyer`). */
    buyer: string;
    /** The address that signed and paid (the session of the checkout); equals `buyer` unless delivery went elsewhere. */
    payer: string;
    price_sats: number;
    platform_fee_sats: number;
    delivery_mode: 'detached' | 'attached';
    state: FillState;
    /** When the market journaled and first broadcast the settlement (unix s). */
    broadcast_at: number;
    /** When the market first saw the confirming block (unix s), and its height. */
    confirmed_at: number | null;
    block_index: number | null;
    created_at: number;
    updated_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../store/schema.js' {
  interface DatabaseSchema extends FillTables {}
}
