/**
 * Trade kernel: owns the fixed numbers every settlement composition shares (delivery output, buyer
 * sequences) and the checkout's limits (spec "Limits" and the market's own choices, documented on the routes).
 */

/** A quote can be signed and completed for this long (unix s); it reserves nothing meanwhile. */
export const QUOTE_TTL_S = 10 * 60;
/** Spec "Checkout cart": 10 lines, 20 units. */
export const MAX_LINES = 10;
export const MAX_UNITS = 20;
/** The attached-delivery output: the move destination that carries the unit to the buyer. */
export const DELIVERY_UTXO_SATS = 330;
/** Buyer inputs signal replaceability; the sellers' inputs keep the sequence they signed. */
export const BUYER_SEQUENCE = 0xfffffffd;
/**
 * The lowest buyer sequence a quote uses: bit 31 stays set (no BIP-68 relative lock), and every
 * value down to it still signals replaceability and enables the sellers' locktime.
 */
export const BUYER_SEQUENCE_MIN = 0xfffffff0;

export type DeliveryMode = 'detached' | 'attached';

/** A cart line as the body gives it: one listing, or the `quantity` cheapest units of an asset. */
export type CartLine = { listing_id: string } | { asset: string; quantity: number };
