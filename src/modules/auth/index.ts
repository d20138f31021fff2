/**
 * What the auth area publishes to the other areas (eslint.config.js forbids reaching past this file).
 */
export { ownedOr404, requireOwner, requireSession } from './guard.js';
