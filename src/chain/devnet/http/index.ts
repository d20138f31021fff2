/**
 * The devnet's protocol faces: Bitcoin Core JSON-RPC at `POST /devnet/rpc` and
 * Counterparty Core API v2 at `GET /devnet/counterparty/v2/...`. The app
 * registers them only when CHAIN=devnet; pointing the production adapters at
 * them runs the real adapter code against the devnet.
 */
import type { FastifyInstance } from 'fastify';
import type { Devnet } from '../devnet.js';
import { registerCounterpartyFace } from './counterparty-face.js';
import { registerRpcFace, type RpcFaceOptions } from './rpc-face.js';

export type DevnetProtocolOptions = RpcFaceOptions;

/**
 * Each face lives in its own encapsulated plugin, so its body parsing, error
 * replies and 404s stay inside its own paths.
 */
export async function registerDevnetProtocols(app: FastifyInstance<any, any, any, any, any>, devnet: Devnet, opts: DevnetProtocolOptions = {}): Promise<void> {
  await app.register(async (scope) => registerRpcFace(scope as FastifyInstance, devnet, opts));
  await app.register(async (scope) => registerCounterpartyFace(scope as FastifyInstance, devnet));
}

export { counterpartyHeaders } from './counterparty-face.js';
export { coreJson } from './core-json.js';
export { handleJsonRpc, RpcFault, type RpcDispatch, type RpcHttpReply } from './json-rpc.js';
export { DEVNET_RPC_METHODS, devnetRpcDispatch } from './rpc-methods.js';
