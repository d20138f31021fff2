/**
 * What the events area publishes to the other areas (eslint.config.js forbids reaching past this file).
 */
export { AssetLongnames } from './asset-longnames.js';
export { EventsService } from './service.js';
