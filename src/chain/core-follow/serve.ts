/**
 * The follower's Counterparty face: Counterparty Core API v2 (`/devnet/counterparty/v2/...`, the
 * devnet's face) over the ledger of the followed chain, caught up with the node before each
 * request. Run the market with CHAIN=bitcoin-core, BITCOIN_RPC_URL at the node and
 * COUNTERPARTY_API_URL at `http://host:port/devnet/counterparty`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { registerCounterpartyFace } from '../devnet/http/counterparty-face.js';
import type { CoreFollower } from './follower.js';

export async function registerFollowerFace(app: FastifyInstance, follower: CoreFollower): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', async () => {
      await follower.sync();
    });
    registerCounterpartyFace(scope as unknown as FastifyInstance, follower.devnet);
  });
}

/** A server of its own for the face on `host:port` (0: any free port); returns its base URL for COUNTERPARTY_API_URL. */
export async function serveFollowerFace(follower: CoreFollower, opts: { host?: string; port?: number } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  await registerFollowerFace(app as unknown as FastifyInstance, follower);
  const host = opts.host ?? '127.0.0.1';
  await app.listen({ host, port: opts.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return { url: `http://${host}:${port}/devnet/counterparty`, close: () => app.close() };
}
