/**
 * What the listings area publishes to the other areas (eslint.config.js forbids reaching past this file).
 */
export { addressLevel, commitments } from './balances.js';
export { cosignUnitInput, cosignedUnitAt, unitHolder, unitLeafSigner } from './cosign-unit.js';
export type { CosignedUnit } from './cosign-unit.js';
export { cosignedOf, listingCosigned } from './cosigned.js';
export { listingState } from './draft-view.js';
export { claimListings, claimListingAt, endListing, exposeListing, releaseClaimAt, releaseListing, sellListings, unsellListings } from './lifecycle.js';
export { MIN_PRICE_SATS, platformFee, tapInternalKeyFor } from './rules.js';
export { ListingSubtypeSchema, TapKey } from './schemas.js';
export { LIVE, ListingStore } from './store.js';
export type { ListingRow } from './store.js';
export type { ExposureReason } from './tables.js';
export { composeUnitMove } from './unit-move.js';
