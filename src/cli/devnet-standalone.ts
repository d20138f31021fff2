import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import { createLogger } from '../bootstrap.js';
import { systemClock } from '../clock.js';
import { openStore } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { installErrorHandling } from '../http/error-handler.js';
import { Devnet } from '../chain/devnet/devnet.js';
import { registerDevnetProtocols } from '../chain/devnet/http/index.js';
import { devnetRoutes } from '../modules/devnet/routes.js';

/**
 * `npm run devnet`: the devnet alone, on its own store, speaking Bitcoin Core
 * JSON-RPC (POST /devnet/rpc) and Counterparty API v2 (/devnet/counterparty/v2),
 * with the control routes. Run the market against it with
 *   CHAIN=bitcoin-core NETWORK=regtest
 *   BITCOIN_RPC_URL=http://127.0.0.1:18443/devnet/rpc
 *   COUNTERPARTY_API_URL=http://127.0.0.1:18443/devnet/counterparty
 *   MARKET_FEE_ADDRESS=<a regtest address>
 */
export async function serveStandaloneDevnet(config: Config): Promise<void> {
  const logger = createLogger(config);
  const url = process.env.DEVNET_DATABASE_URL ?? `sqlite:${path.join(config.DATA_DIR, process.env.DEVNET_FOLLOW_RPC_URL ? 'devnet-follow.sqlite' : 'devnet.sqlite')}`;
  const store = await openStore(url, { schema: process.env.DEVNET_DATABASE_SCHEMA });
  await migrate(store);
  if (process.env.DEVNET_FOLLOW_RPC_URL) return serveFollowing(config, logger, store, process.env.DEVNET_FOLLOW_RPC_URL);
  const devnet = await Devnet.open(store, systemClock, {
    blockIntervalMs: config.DEVNET_BLOCK_INTERVAL_MS,
    attachFeeRaw: config.DEVNET_ATTACH_FEE_RAW ?? null,
    onError: (err: unknown) => logger.error({ err }, 'devnet: interval mining failed'),
  });
  if (config.DEVNET_BLOCK_INTERVAL_MS > 0) devnet.startMining();

  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger }).withTypeProvider<TypeBoxTypeProvider>();
  installErrorHandling(app as unknown as FastifyInstance);
  await registerDevnetProtocols(app, devnet);
  devnetRoutes(app, { network: 'regtest', sync: async () => {} }, devnet);
  const port = Number(process.env.DEVNET_PORT ?? 18443);
  await app.listen({ port, host: process.env.DEVNET_HOST ?? '127.0.0.1' });
  logger.info({ port, store: store.dialect }, 'devnet listening: /devnet/rpc, /devnet/counterparty/v2, /devnet/*');

  const stop = async () => {
    await app.close();
    await devnet.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/**
 * DEVNET_FOLLOW_RPC_URL set: the devnet's ledger following a real Bitcoin Core (src/chain/core-follow):
 * Counterparty API v2 at /devnet/counterparty/v2 over the node's chain, and the control routes
 * (faucet, mine, assets, credit, transfer, reorg) acting on that node. Run the market with
 *   CHAIN=bitcoin-core NETWORK=regtest BITCOIN_RPC_URL=<the node>
 *   COUNTERPARTY_API_URL=http://127.0.0.1:18443/devnet/counterparty
 */
async function serveFollowing(config: Config, logger: ReturnType<typeof createLogger>, store: Awaited<ReturnType<typeof openStore>>, rpcUrl: string): Promise<void> {
  const { CoreFollower } = await import('../chain/core-follow/follower.js');
  const { registerFollowerFace } = await import('../chain/core-follow/serve.js');
  const follower = await CoreFollower.open(store, { rpcUrl, attachFeeRaw: config.DEVNET_ATTACH_FEE_RAW ?? null });
  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger }).withTypeProvider<TypeBoxTypeProvider>();
  installErrorHandling(app as unknown as FastifyInstance);
  await registerFollowerFace(app as unknown as FastifyInstance, follower);
  devnetRoutes(app, { network: 'regtest', sync: () => follower.sync() }, follower);
  const port = Number(process.env.DEVNET_PORT ?? 18443);
  await app.listen({ port, host: process.env.DEVNET_HOST ?? '127.0.0.1' });
  logger.info({ port, height: follower.devnet.state.chain.height }, 'devnet following a Bitcoin Core: /devnet/counterparty/v2, /devnet/*');
  const stop = async () => {
    await app.close();
    await follower.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
