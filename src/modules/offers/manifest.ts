import type { Area } from '../../area.js';
import { offerRoutes } from './routes.js';
import { offersWatcher } from './watcher.js';

/** Bids: funding, placement, cancellation, the bidder's reads; its watcher retires offers whose funding output was spent. */
export const offersArea: Area = { name: 'offers', routes: offerRoutes, watchers: () => [offersWatcher()] };
