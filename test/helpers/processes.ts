/**
 * Real processes for crash tests: the standalone devnet (`npm run devnet`) and the market
 * (`serve` with CHAIN=bitcoin-core pointed at it), each a child `node` process on its own
 * store of the backend under test. A test can freeze the devnet (SIGSTOP) so a broadcast
 * hangs, kill the market outright (SIGKILL) and start it again on the same store.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropSchema } from '../../src/store/db.js';
import { backend, pgUrl } from './store.js';
import { startCliOnFreePort, type Child } from '../../sim/processes.js';

export { freePort, type Child } from '../../sim/processes.js';

/** A DATABASE_URL (+ schema) of its own on the backend under test (or `on`: the bench picks PostgreSQL), and its cleanup. */
export function childStore(name: string, on: typeof backend = backend): { env: Record<string, string>; cleanup(): Promise<void> } {
  // Every process gets a data directory of its own (signer keys, market wallet), never the repository's ./data.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cpmkt-${name}-`));
  const rm = async () => fs.rmSync(dir, { recursive: true, force: true });
  if (on === 'postgres') {
    const schema = `p_${name}_${crypto.randomBytes(5).toString('hex')}`;
    return { env: { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema, DATA_DIR: dir }, cleanup: async () => (await dropSchema(pgUrl, schema), await rm()) };
  }
  return {
    env: { DATABASE_URL: `sqlite:${path.join(dir, `${name}.sqlite`)}`, DATA_DIR: dir },
    cleanup: rm,
  };
}

/** `npm run devnet` on its own store. */
export async function startDevnet(store: Record<string, string>): Promise<Child & { rpcUrl: string; apiUrl: string }> {
  const env: Record<string, string> = { DEVNET_HOST: '127.0.0.1', DEVNET_ATTACH_FEE_RAW: '0' };
  if (store.DATABASE_URL) env.DEVNET_DATABASE_URL = store.DATABASE_URL;
  if (store.DATABASE_SCHEMA) env.DEVNET_DATABASE_SCHEMA = store.DATABASE_SCHEMA;
  const child = await startCliOnFreePort((port) => ({
    args: ['devnet'],
    env: { ...env, DEVNET_PORT: String(port) },
    probe: `http://127.0.0.1:${port}/devnet/addresses/bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080/utxos`,
  }));
  const base = `http://127.0.0.1:${child.port}`;
  return { ...child, url: base, rpcUrl: `${base}/devnet/rpc`, apiUrl: `${base}/devnet/counterparty` };
}

/** The market (`serve`) against a running devnet, through the production adapters. */
export async function startMarket(store: Record<string, string>, devnet: { rpcUrl: string; apiUrl: string }, env: Record<string, string> = {}): Promise<Child> {
  const child = await startCliOnFreePort((port) => ({
    args: ['serve'],
    env: {
      ...store,
      PORT: String(port),
      HOST: '127.0.0.1',
      CHAIN: 'bitcoin-core',
      NETWORK: 'regtest',
      BITCOIN_RPC_URL: devnet.rpcUrl,
      COUNTERPARTY_API_URL: devnet.apiUrl,
      SEED_DEMO: 'false',
      INDEXER_INTERVAL_MS: '200',
      RECOVERY_INTERVAL_MS: '200',
      ...env,
    },
    probe: `http://127.0.0.1:${port}/healthz`,
  }));
  return { ...child, url: `http://127.0.0.1:${child.port}` };
}

/** The market as `npm start` runs it: the devnet inside (CHAIN=devnet), on its own store and port. */
export async function startDevnetMarket(store: Record<string, string>, env: Record<string, string> = {}, timeoutMs?: number): Promise<Child> {
  const child = await startCliOnFreePort((port) => ({
    args: ['serve'],
    env: { ...store, PORT: String(port), HOST: '127.0.0.1', CHAIN: 'devnet', ...env },
    probe: `http://127.0.0.1:${port}/healthz`,
  }), undefined, timeoutMs);
  return { ...child, url: `http://127.0.0.1:${child.port}` };
}
