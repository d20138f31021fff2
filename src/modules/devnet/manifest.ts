import type { Area } from '../../area.js';
import { devnetRoutes } from './routes.js';

/**
 * The devnet's control routes (/devnet/*), and its Bitcoin Core JSON-RPC and
 * Counterparty API v2 faces so real adapters can point at it; only when CHAIN=devnet.
 */
export const devnetArea: Area = {
  name: 'devnet',
  routes: async (app, ctx) => {
    if (!ctx.devnet) return;
    devnetRoutes(app, { network: ctx.config.NETWORK, sync: () => ctx.sync() }, ctx.devnet);
    const { Devnet } = await import('../../chain/devnet/devnet.js');
    if (ctx.devnet instanceof Devnet) {
      const { registerDevnetProtocols } = await import('../../chain/devnet/http/index.js');
      await registerDevnetProtocols(app, ctx.devnet);
    }
  },
};
