/**
 * What the checkout area publishes to the other areas (eslint.config.js forbids reaching past this file).
 */
export { MAX_LINES, MAX_UNITS } from './rules.js';
