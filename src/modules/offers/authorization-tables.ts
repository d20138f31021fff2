/**
 * Exact offer authorizations: a bidder's pre-signed parent transaction for one of its offers
 * over one asset outpoint (protocol.md "Exact offer"). The bidder signs input 0 (its funding
 * slot) ALL in advance; the seller who holds the outpoint accepts by signing input 1.
 *
 * `state` (one owner: authorizations.ts):
 *   awaiting_bidder → active (the bidder's signature verified)
 *   active → used (a seller's accept journaled the settlement; back to active if it is released)
 *   awaiting_bidder | active → retired (cancelled by the bidder, its offer ended, the slot or the
 *   asset outpoint spent elsewhere); expired is derived at read time from `expires_at`.
 */
export type AuthorizationState = 'awaiting_bidder' | 'active' | 'used' | 'retired';

export interface ExactOfferTables {
  exact_authorizations: {
    id: string;
    offer_id: string;
    slot_id: string;
    bidder: string;
    /** The address the asset outpoint pays (who can accept), when the authorization was made. */
    seller: string;
    asset: string;
    quantity_raw: string;
    asset_txid: string;
    asset_vout: number;
    asset_outpoint: string;
    asset_value_sats: number;
    slot_outpoint: string;
    price_sats: number;
    platform_fee_sats: number;
    /** The network fee the parent itself carries (fee_rate × parent vsize when made). */
    prefunded_fee_sats: number;
    fee_rate: number;
    seller_proceeds_sats: number;
    delivery_mode: 'detached' | 'attached';
    receive_address: string;
    offer_scope: 'asset' | 'collection';
    /** The unsigned parent template (PSBT hex) and its final txid. */
    psbt: string;
    parent_txid: string;
    parent_vsize: number;
    /** The template with the bidder's verified input-0 signature: private, never shown. */
    bidder_signed_psbt: string | null;
    state: AuthorizationState;
    end_reason: string | null;
    settlement_id: string | null;
    /** The listing of the asset outpoint the accept reserved, if it was listed (released with the settlement). */
    claimed_listing_id: string | null;
    expires_at: number;
    created_at: number;
    updated_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends ExactOfferTables {}
}
