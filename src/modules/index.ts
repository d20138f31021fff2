import type { App } from '../app.js';
import type { Context } from '../context.js';
import { authRoutes } from './auth/routes.js';
import { healthRoutes } from './health/routes.js';
import { feeRoutes } from './fees/routes.js';
import { transactionRoutes } from './transactions/routes.js';
import { devnetRoutes } from './devnet/routes.js';
import { catalogRoutes } from './market/catalog-routes.js';
import { listingRoutes } from './listings/routes.js';
import { inventoryRoutes } from './inventory/routes.js';
import { fillRoutes } from './fills/routes.js';
import { eventRoutes } from './events/routes.js';

/** Every area of the spec registers its routes here; a route's code lives in modules/<area>/routes.ts. */
export async function registerModules(app: App, ctx: Context): Promise<void> {
  healthRoutes(app, ctx);
  authRoutes(app, ctx);
  feeRoutes(app, ctx);
  transactionRoutes(app, ctx);
  catalogRoutes(app, ctx);
  listingRoutes(app, ctx);
  inventoryRoutes(app, ctx);
  fillRoutes(app, ctx);
  eventRoutes(app, ctx);
  if (ctx.devnet) {
    devnetRoutes(app, { network: ctx.config.NETWORK, sync: () => ctx.sync() }, ctx.devnet);
    // The devnet also speaks Bitcoin Core JSON-RPC and Counterparty API v2, so real adapters can point at it.
    const { Devnet } = await import('../chain/devnet/devnet.js');
    if (ctx.devnet instanceof Devnet) {
      const { registerDevnetProtocols } = await import('../chain/devnet/http/index.js');
      await registerDevnetProtocols(app, ctx.devnet);
    }
  }
}
