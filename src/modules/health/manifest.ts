import type { Area } from '../../area.js';
import { healthRoutes } from './routes.js';

/** Liveness and readiness. */
export const healthArea: Area = { name: 'health', routes: healthRoutes };
