import type { Area } from '../../area.js';
import { feeRoutes } from './routes.js';

/** Fee rates and the attach fee estimate. */
export const feesArea: Area = { name: 'fees', routes: feeRoutes };
