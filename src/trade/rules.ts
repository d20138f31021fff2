/** Trade kernel: owns the fixed numbers every buyer-funded composition shares (delivery output, buyer sequences). */

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
