/**
 * Real processes for crash tests: the standalone devnet (`npm run devnet`) and the market
 * (`serve` with CHAIN=bitcoin-core pointed at it), each a child `node` process on its own
 * store of the backend under test. A test can freeze the devnet (SIGSTOP) so a broadcast
 * hangs, kill the market outright (SIGKILL) and start it again on the same store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { dropSchema } from '../../src/store/db.js';
import { backend, pgUrl } from './store.js';
import { REPO_ROOT } from './fixtures.js';

export interface Child {
  url: string;
  proc: ChildProcess;
  /** Everything the process printed (for a failing test's message). */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(url: string, child: ChildProcess, out: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}:\n${out()}`);
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} did not come up in ${timeoutMs} ms:\n${out()}`);
}

function start(args: string[], env: Record<string, string>, probe: string): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buf = '';
  const take = (d: Buffer) => {
    buf = (buf + d.toString()).slice(-20_000);
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  const child: Child = {
    url: probe.replace(/\/[^/]*$/, ''),
    proc,
    output: () => buf,
    kill: async (signal = 'SIGKILL') => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill(signal);
      await exited;
    },
  };
  return waitUntilUp(probe, proc, child.output).then(
    () => child,
    async (e: unknown) => {
      await child.kill();
      throw e;
    },
  );
}

/** `npm run devnet` on its own store. */
export async function startDevnet(store: Record<string, string>): Promise<Child & { rpcUrl: string; apiUrl: string }> {
  const port = await freePort();
  const env: Record<string, string> = { DEVNET_PORT: String(port), DEVNET_HOST: '127.0.0.1', DEVNET_ATTACH_FEE_RAW: '0' };
  if (store.DATABASE_URL) env.DEVNET_DATABASE_URL = store.DATABASE_URL;
  if (store.DATABASE_SCHEMA) env.DEVNET_DATABASE_SCHEMA = store.DATABASE_SCHEMA;
  const child = await start(['devnet'], env, `http://127.0.0.1:${port}/devnet/addresses/bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080/utxos`);
  const base = `http://127.0.0.1:${port}`;
  return { ...child, url: base, rpcUrl: `${base}/devnet/rpc`, apiUrl: `${base}/devnet/counterparty` };
}

/** The market (`serve`) against a running devnet, through the production adapters. */
export async function startMarket(store: Record<string, string>, devnet: { rpcUrl: string; apiUrl: string }, env: Record<string, string> = {}): Promise<Child> {
  const port = await freePort();
  const child = await start(
    ['serve'],
    {
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
    `http://127.0.0.1:${port}/healthz`,
  );
  return { ...child, url: `http://127.0.0.1:${port}` };
}

/** The market as `npm start` runs it: the devnet inside (CHAIN=devnet), on its own store and port. */
export async function startDevnetMarket(store: Record<string, string>, env: Record<string, string> = {}): Promise<Child> {
  const port = await freePort();
  const child = await start(['serve'], { ...store, PORT: String(port), HOST: '127.0.0.1', CHAIN: 'devnet', ...env }, `http://127.0.0.1:${port}/healthz`);
  return { ...child, url: `http://127.0.0.1:${port}` };
}
