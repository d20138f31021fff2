import type { Area } from '../../area.js';
import { authRoutes } from './routes.js';

/** Sign-in: challenges, message signatures, sessions. */
export const authArea: Area = { name: 'auth', routes: authRoutes };
