import type { Area } from '../../area.js';
import { inventoryRoutes } from './routes.js';

/** A seller's attachable and prepared units. */
export const inventoryArea: Area = { name: 'inventory', routes: inventoryRoutes };
