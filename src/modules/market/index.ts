/**
 * What the market area publishes to the other areas (eslint.config.js forbids reaching past this file).
 */
export { traitFields } from './book-routes.js';
export { CollectionSlug } from './collections-routes.js';
export { assetMemberships } from './memberships.js';
export { assetMatches, isOneUnit, normalizeTarget, oneUnitRaw, policyTargetOf } from './policy-predicate.js';
export type { AssetTraits, PolicyTarget, TargetInput } from './policy-predicate.js';
export { primaryCollections } from './primary-collection.js';
