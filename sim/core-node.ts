/**
 * A real Bitcoin Core for a simulated day (`--core`, the binary named by BITCOIND): regtest on
 * loopback, no peers, no wallet, `-txindex`, its data directory in the run folder. The devnet then
 * follows it (DEVNET_FOLLOW_RPC_URL: the Counterparty ledger over Core's chain, the control routes
 * acting on Core) and the market speaks to Core itself through the relay proxy. The RPC password
 * is fixed for the run (not a cookie), so the node can be restarted under the market: a restart
 * loses the mempool (`-persistmempool=0`), as a node operator's restart does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './processes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class CoreNode {
  private proc: ChildProcess | undefined;
  private exited = true;
  private restarting = false;
  private readonly password = crypto.randomBytes(16).toString('hex');
  version = '';

  private constructor(
    private readonly bin: string,
    private readonly datadir: string,
    private readonly rpcPort: number,
  ) {}

  static async start(bin: string, datadir: string): Promise<CoreNode> {
    fs.mkdirSync(datadir, { recursive: true });
    const node = new CoreNode(bin, datadir, await freePort());
    await node.up();
    return node;
  }

  /** The RPC endpoint without credentials (for a proxy in front of it); `auth` is its header. */
  get plainUrl(): string {
    return `http://127.0.0.1:${this.rpcPort}/`;
  }

  /** The RPC endpoint with its credentials in the URL (the market's and the devnet's RPC clients read them there). */
  urlVia(base: string): string {
    const u = new URL(base);
    u.username = 'sim';
    u.password = this.password;
    return u.toString();
  }

  get auth(): string {
    return `Basic ${Buffer.from(`sim:${this.password}`).toString('base64')}`;
  }

  /**
   * One call, as the simulator's own readers make them (a sniper, the oracle): a node being
   * restarted is waited for (up to 30 s) rather than taken for an answer (day 9149: a sniper's
   * mempool read met a restart).
   */
  async rpc(method: string, params: unknown[] = []): Promise<any> {
    const send = () => fetch(this.plainUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: this.auth }, body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }) });
    let r: Response | undefined;
    for (const until = Date.now() + 30_000; !r; ) {
      r = await send().catch(async (e: unknown) => {
        if (Date.now() > until || !this.restarting) throw e;
        await sleep(200);
        return undefined;
      });
    }
    const j = (await r.json()) as { result: unknown; error: { code: number; message: string } | null };
    if (j.error) throw new Error(`${method}: ${j.error.message}`);
    return j.result;
  }

  private async up(): Promise<void> {
    const p2p = await freePort();
    this.proc = spawn(this.bin, [
      '-regtest', `-datadir=${this.datadir}`, '-server=1', '-listen=0', `-port=${p2p}`, '-connect=0', '-dnsseed=0', '-fixedseeds=0',
      '-rpcbind=127.0.0.1', '-rpcallowip=127.0.0.1', `-rpcport=${this.rpcPort}`, '-rpcuser=sim', `-rpcpassword=${this.password}`, '-rpcthreads=16',
      '-disablewallet=1', '-txindex=1', '-acceptnonstdtxn=0', '-persistmempool=0', '-printtoconsole=0',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    this.proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    this.exited = false;
    this.proc.on('exit', () => (this.exited = true));
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (this.exited) throw new Error(`bitcoind exited at start: ${stderr.trim()}`);
      if (Date.now() > deadline) throw new Error('bitcoind did not answer within 120 s');
      try {
        this.version = ((await this.rpc('getnetworkinfo')) as { subversion: string }).subversion;
        return;
      } catch {
        await sleep(200); // warming up
      }
    }
  }

  /** Stops the node (RPC `stop`, then a kill after 30 s). */
  async stop(): Promise<void> {
    if (this.exited) return;
    await this.rpc('stop').catch(() => undefined);
    const until = Date.now() + 30_000;
    while (!this.exited && Date.now() < until) await sleep(100);
    if (!this.exited) this.proc?.kill('SIGKILL');
    while (!this.exited) await sleep(50);
  }

  /** An operator's restart: stopped, then started on the same data and port; the mempool is gone. */
  async restart(): Promise<void> {
    this.restarting = true;
    try {
      await this.stop();
      await this.up();
    } finally {
      this.restarting = false;
    }
  }

  get debugLog(): string {
    return path.join(this.datadir, 'regtest', 'debug.log');
  }
}
