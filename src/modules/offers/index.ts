/**
 * What the offers area publishes to the other areas (eslint.config.js forbids reaching past this file).
 */
export type { ExactOfferTables } from './authorization-tables.js';
export { activateAuthorization, createAuthorizations, retireAuthorizations, reuseAuthorization, unuseAuthorization, useAuthorization } from './authorizations.js';
export type { CounterTables } from './counter-tables.js';
export { createCounter, restoreCounters, retireMovedCounters, withdrawCounter } from './counters.js';
export { fillOffer, refillOffer, unfillOffer } from './lifecycle.js';
export { checkOfferExpiry, checkOfferPrice, levelKey, offerStatus, signatureValidity } from './rules.js';
export { OfferTarget } from './schemas.js';
export type { OfferRow } from './store.js';
export type { OfferEndReason } from './tables.js';
export { resolveTargets } from './targets.js';
export type { TargetBody } from './targets.js';
