import type { Area } from '../../area.js';
import { counterRoutes } from './routes.js';

/** Sellers' counters to bids, private to the two addresses. */
export const countersArea: Area = { name: 'counters', routes: counterRoutes };
