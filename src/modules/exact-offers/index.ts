/**
 * What the exact-offers area publishes to the other areas (eslint.config.js forbids reaching past this file).
 */
export { offerReaches } from './authorize.js';
