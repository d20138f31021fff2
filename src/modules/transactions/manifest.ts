import type { Area } from '../../area.js';
import { transactionRoutes } from './routes.js';

/** Read-only transaction status checks. */
export const transactionsArea: Area = { name: 'transactions', routes: transactionRoutes };
