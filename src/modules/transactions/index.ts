/**
 * What the transactions area publishes to the other areas (eslint.config.js forbids reaching past this file).
 */
export { FINALITY_DEPTH } from './service.js';
