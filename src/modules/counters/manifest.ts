import type { Area } from '../../area.js';
import { counterRoutes } from './routes.js';
import { countersWatcher } from './watcher.js';

/** Sellers' counters to bids, private to the two addresses; its watcher retires counters whose unit a block spent. */
export const countersArea: Area = { name: 'counters', routes: counterRoutes, watchers: () => [countersWatcher()] };
