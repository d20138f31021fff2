/**
 * A devnet on a fresh test store, its protocol faces served by fastify on
 * 127.0.0.1 (ephemeral port), and the production adapters pointed at them.
 */
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { BitcoinCoreBackend } from '../../src/chain/bitcoin-core/index.js';
import { BitcoinRpcClient } from '../../src/chain/bitcoin-core/rpc-client.js';
import { CounterpartyCoreBackend } from '../../src/chain/counterparty-core/index.js';
import type { DevnetOptions } from '../../src/chain/devnet/index.js';
import { registerDevnetProtocols, type DevnetProtocolOptions } from '../../src/chain/devnet/http/index.js';
import { openTestDevnet, type TestDevnet } from '../helpers/devnet.js';

export interface DevnetFaces {
  t: TestDevnet;
  app: FastifyInstance;
  base: string;
  rpcUrl: string;
  btc: BitcoinCoreBackend;
  cp: CounterpartyCoreBackend;
  /** Raw RPC calls the port has no method for (generatetoaddress, invalidateblock). */
  rpc: BitcoinRpcClient;
  close(): Promise<void>;
}

export async function startDevnetFaces(options: DevnetOptions = {}, protocol: DevnetProtocolOptions = {}): Promise<DevnetFaces> {
  const t = await openTestDevnet(options);
  const app = Fastify({ logger: false });
  await registerDevnetProtocols(app, t.devnet, protocol);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const creds = protocol.auth ? `${encodeURIComponent(protocol.auth.user)}:${encodeURIComponent(protocol.auth.password)}@` : 'any:thing@';
  const rpcUrl = `http://${creds}${base.slice('http://'.length)}/devnet/rpc`;
  return {
    t,
    app,
    base,
    rpcUrl,
    btc: new BitcoinCoreBackend({ url: rpcUrl, retry: { retries: 0 } }),
    cp: new CounterpartyCoreBackend({ url: `${base}/devnet/counterparty`, retry: { retries: 0 } }),
    rpc: new BitcoinRpcClient({ url: rpcUrl, retry: { retries: 0 } }),
    async close() {
      await app.close();
      await t.cleanup();
    },
  };
}

/** POSTs a raw body to the RPC face; returns status, parsed body (or null) and headers. */
export async function postRpc(f: DevnetFaces, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await fetch(`${f.base}/devnet/rpc`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as unknown) : null, headers: res.headers };
}
