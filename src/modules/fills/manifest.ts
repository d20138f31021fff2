import type { Area } from '../../area.js';
import { fillRoutes } from './routes.js';

/** Sales: one fill row per unit sold, written by the settlement that sold it. */
export const fillsArea: Area = { name: 'fills', routes: fillRoutes };
