/**
 * A real Bitcoin Core for the lane: `bitcoind` (the binary named by BITCOIND) on regtest, on
 * loopback, with a fresh temporary data directory, random ports, cookie authentication, no
 * wallet, no peers, and `-txindex` (the market's adapter reads confirmed transactions).
 *
 *   const core = await startBitcoind();
 *   await core.rpc('getblockcount');          // throws CoreRpcError with Core's code and message
 *   await core.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BitcoinRpcClient, RpcError } from '../../src/chain/bitcoin-core/rpc-client.js';

export const BITCOIND = process.env.BITCOIND ?? '';
export const SKIP_REASON = 'set BITCOIND to a bitcoind binary to run the real Bitcoin Core lane (npm run test:core)';

export interface Bitcoind {
  /** `http://__cookie__:…@127.0.0.1:port` */
  url: string;
  version: string;
  datadir: string;
  rpc<T = unknown>(method: string, ...params: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startBitcoind(extraArgs: string[] = []): Promise<Bitcoind> {
  if (!BITCOIND) throw new Error(SKIP_REASON);
  const datadir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-core-'));
  // No P2P at all (-listen=0, no seeds, no outbound): the P2P port is random only so that two
  // nodes never contend for the default one.
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const args = [
    '-regtest', `-datadir=${datadir}`, '-server=1', '-listen=0', `-port=${p2pPort}`, '-connect=0',
    '-rpcbind=127.0.0.1', '-rpcallowip=127.0.0.1', `-rpcport=${rpcPort}`, '-disablewallet=1', '-txindex=1',
    '-acceptnonstdtxn=0', '-persistmempool=0', '-dnsseed=0', '-fixedseeds=0', '-printtoconsole=0',
    ...extraArgs,
  ];
  const child: ChildProcess = spawn(BITCOIND, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));

  const cookie = path.join(datadir, 'regtest', '.cookie');
  const deadline = Date.now() + 120_000;
  let client: BitcoinRpcClient | null = null;
  let version = '';
  for (;;) {
    if (exited) throw new Error(`bitcoind exited at start: ${stderr.trim()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('bitcoind did not answer within 120 s');
    }
    if (!client && fs.existsSync(cookie)) {
      const [user, pass] = fs.readFileSync(cookie, 'utf8').trim().split(':');
      client = new BitcoinRpcClient({ url: `http://${user}:${encodeURIComponent(pass!)}@127.0.0.1:${rpcPort}`, retry: { retries: 0 }, timeoutMs: 60_000 });
    }
    if (client) {
      try {
        const info = await client.call<{ subversion: string }>('getnetworkinfo', [], { idempotent: false });
        version = info.subversion;
        break;
      } catch {
        // warming up
      }
    }
    await sleep(200);
  }
  const [user, pass] = fs.readFileSync(cookie, 'utf8').trim().split(':');
  const url = `http://${user}:${encodeURIComponent(pass!)}@127.0.0.1:${rpcPort}`;
  const rpc = <T>(method: string, ...params: unknown[]) => client!.call<T>(method, params, { idempotent: false });
  return {
    url,
    version,
    datadir,
    rpc,
    async stop() {
      if (!exited) {
        await rpc('stop').catch(() => undefined);
        const until = Date.now() + 30_000;
        while (!exited && Date.now() < until) await sleep(100);
        if (!exited) child.kill('SIGKILL');
      }
      fs.rmSync(datadir, { recursive: true, force: true });
    },
  };
}

export { RpcError };
