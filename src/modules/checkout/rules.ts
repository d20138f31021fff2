/** The checkout's fixed rules (spec "Limits" and the market's own choices, documented on the routes). */

/** A quote can be signed and completed for this long (unix s); it reserves nothing meanwhile. */
export const QUOTE_TTL_S = 10 * 60;
/** Spec "Checkout cart": 10 lines, 20 units. */
export const MAX_LINES = 10;
export const MAX_UNITS = 20;
/** Coins a buyer may name to fund one checkout (`funding`); the market's own pick has no cap but need. */
export const MAX_NAMED_FUNDING = 20;

/** A cart line as the body gives it: one listing, or the `quantity` cheapest units of an asset. */
export type CartLine = { listing_id: string; max_price_sats?: number } | { asset: string; quantity: number };
