/**
 * The simulated market's processes, all real: the standalone devnet (`devnet`, its own SQLite
 * store), a JSON-RPC proxy in front of it (relay faults), the market signer (`signer`), and one
 * market instance on SQLite or several on one PostgreSQL schema sharing a private redis-server.
 * The world can kill, restart and disturb each of them; it knows nothing of traders.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { dropSchema } from '../src/store/db.js';
import { entryArgs, freePort, isRunning, REPO_ROOT, startCli, startCliOnFreePort, startRedis, type Child } from './processes.js';
import { rpcProxy } from './rpc-proxy.js';
import { terminateSessionsOf } from './pg-sessions.js';
import { tcpStall, type TcpStall } from './tcp-stall.js';
import { CoreNode } from './core-node.js';

export interface WorldOptions {
  /** Where the run keeps its stores and logs. */
  dir: string;
  instances: number;
  backend: 'sqlite' | 'postgres';
  pgUrl: string;
  /** Each instance's clock skew in ms (index = instance). */
  skewMs: number[];
  /** The platform fee address (regtest). */
  feeAddress: string;
  /** Redis on the cluster (a private redis-server); always with several instances. */
  redis: boolean;
  /** A bitcoind binary: the day runs on a real Bitcoin Core (sim/core-node.ts) that the devnet follows. */
  core?: string;
}

type Proxy = Awaited<ReturnType<typeof rpcProxy>>;

/** A loaded machine starts a market (tsx, the app, recovery and the indexer's first run) slowly. */
const START_TIMEOUT_MS = 180_000;

export class World {
  devnet!: Child & { rpcUrl: string; apiUrl: string };
  proxy!: Proxy;
  /** The real node, on a day run with `--core`. */
  core: CoreNode | undefined;
  signer: Child | undefined;
  redis: Child | undefined;
  /** PostgreSQL as the instances reach it: through a relay that can stall (pg_hang). */
  pgRelay: TcpStall | undefined;
  readonly markets: Array<Child | undefined> = [];
  /** Bid funding transactions a trader replaced before they confirmed (funding txid → its replacement): the live_bids invariant's record. */
  readonly replacedFundings = new Map<string, string>();
  private redisPort = 0;
  private signerPort = 0;
  private readonly signerSecret = crypto.randomBytes(24).toString('hex');
  private readonly schema: string | undefined;
  private readonly marketEnv: Record<string, string>[] = [];
  private closed = false;

  private constructor(readonly o: WorldOptions) {
    this.schema = o.backend === 'postgres' ? `sim_${crypto.randomBytes(5).toString('hex')}` : undefined;
  }

  static async start(o: WorldOptions): Promise<World> {
    fs.mkdirSync(o.dir, { recursive: true });
    const w = new World(o);
    try {
      await w.boot();
    } catch (e) {
      await w.close();
      throw e;
    }
    return w;
  }

  log(name: string): string {
    return path.join(this.o.dir, `${name}.log`);
  }

  private async boot(): Promise<void> {
    if (this.o.core) this.core = await CoreNode.start(this.o.core, path.join(this.o.dir, 'core'));
    const devnet = await startCliOnFreePort((port) => ({
      args: ['devnet'],
      env: {
        DEVNET_PORT: String(port), DEVNET_HOST: '127.0.0.1', DEVNET_ATTACH_FEE_RAW: '0',
        DEVNET_DATABASE_URL: `sqlite:${path.join(this.o.dir, 'devnet.sqlite')}`, DATA_DIR: path.join(this.o.dir, 'devnet'), LOG_LEVEL: 'info',
        ...(this.core ? { DEVNET_FOLLOW_RPC_URL: this.core.urlVia(this.core.plainUrl) } : {}),
      },
      probe: `http://127.0.0.1:${port}/devnet/addresses/bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080/utxos`,
    }), this.log('devnet'), START_TIMEOUT_MS);
    const base = `http://127.0.0.1:${devnet.port}`;
    this.devnet = Object.assign(devnet, { url: base, rpcUrl: `${base}/devnet/rpc`, apiUrl: `${base}/devnet/counterparty` });
    // The market's node: the devnet's Bitcoin Core face, or the real node (its credentials pass through the proxy).
    this.proxy = await rpcProxy(this.core ? this.core.plainUrl : this.devnet.rpcUrl);
    this.signerPort = await freePort();
    await this.startSigner();
    if (this.o.redis) {
      this.redisPort = await freePort();
      await this.startRedis();
    }
    if (this.o.backend === 'postgres') this.pgRelay = await tcpStall(this.o.pgUrl);
    for (let i = 0; i < this.o.instances; i++) {
      const store: Record<string, string> = this.o.backend === 'postgres'
        ? {
            DATABASE_URL: this.pgRelay!.url, DATABASE_SCHEMA: this.schema!,
            // Shorter than the defaults (5 s, 30 s), so that a pg_hang of 2-10 s both waits out and
            // trips the query deadline: transactions and commits are cut mid-flight.
            PG_CONNECT_TIMEOUT_MS: '3000', PG_QUERY_TIMEOUT_MS: '6000',
          }
        : { DATABASE_URL: `sqlite:${path.join(this.o.dir, 'market.sqlite')}` };
      this.marketEnv[i] = {
        ...store,
        DATA_DIR: path.join(this.o.dir, `market-${i}`),
        // One market, one market wallet: every instance opens the same key file (docs/configuration.md).
        MARKET_WALLET_DIR: path.join(this.o.dir, 'market-wallet'),
        HOST: '127.0.0.1',
        CHAIN: 'bitcoin-core',
        NETWORK: 'regtest',
        BITCOIN_RPC_URL: this.core ? this.core.urlVia(this.proxy.url) : this.proxy.url,
        COUNTERPARTY_API_URL: this.devnet.apiUrl,
        SEED_DEMO: 'false',
        INDEXER_INTERVAL_MS: '300',
        RECOVERY_INTERVAL_MS: '1000',
        LEADERSHIP_INTERVAL_MS: '1000',
        WEBHOOK_INTERVAL_MS: '500',
        MARKET_FEE_ADDRESS: this.o.feeAddress,
        SIGNER_URL: `http://127.0.0.1:${this.signerPort}`,
        SIGNER_SECRET: this.signerSecret,
        CLOCK_SKEW_MS: String(this.o.skewMs[i] ?? 0),
        // Every trader speaks from an address of its own behind the balancer (x-forwarded-for).
        TRUST_PROXY_HOPS: '1',
        LOG_LEVEL: 'info',
        ...(this.o.redis ? { REDIS_URL: `redis://127.0.0.1:${this.redisPort}`, REDIS_PREFIX: 'sim:' } : {}),
      };
    }
    // The first instance migrates the store alone; the others then start side by side.
    await this.startMarket(0);
    await Promise.all(this.marketEnv.slice(1).map((_, k) => this.startMarket(k + 1)));
  }

  async startMarket(i: number): Promise<Child> {
    const m = await startCliOnFreePort((port) => ({ args: ['serve'], env: { ...this.marketEnv[i]!, PORT: String(port) }, probe: `http://127.0.0.1:${port}/healthz` }), this.log(`market-${i}`), START_TIMEOUT_MS);
    m.url = `http://127.0.0.1:${m.port}`;
    this.markets[i] = m;
    return m;
  }

  /** A one-shot market command (e.g. `catalog-import FILE`) on the store, with the instances' config. */
  async command(args: string[]): Promise<string> {
    const { execFile } = await import('node:child_process');
    return new Promise((resolve, reject) => {
      execFile(process.execPath, [...entryArgs('src/cli/main.ts'), ...args], { cwd: REPO_ROOT, env: { ...process.env, ...this.marketEnv[0]!, PORT: '1' } }, (err, stdout, stderr) =>
        err ? reject(new Error(`${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout));
    });
  }

  /** The instances up now. */
  live(): Child[] {
    return this.markets.filter((m): m is Child => !!m && isRunning(m));
  }

  async killMarket(i: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.markets[i]?.kill(signal);
  }

  async startSigner(): Promise<void> {
    this.signer = await startCli(['signer'], {
      SIGNER_DIR: path.join(this.o.dir, 'signer'), SIGNER_SECRET: this.signerSecret, SIGNER_PORT: String(this.signerPort), SIGNER_HOST: '127.0.0.1', LOG_LEVEL: 'info',
    }, `http://127.0.0.1:${this.signerPort}/signer/keys`, this.log('signer'));
  }

  async killSigner(): Promise<void> {
    await this.signer?.kill('SIGKILL');
  }

  async startRedis(): Promise<void> {
    this.redis = await startRedis(this.redisPort, this.log('redis'));
  }

  /** Freezes Redis (SIGSTOP): its connections stay open and nothing answers. */
  pauseRedis(): void {
    if (this.redis && isRunning(this.redis)) this.redis.proc.kill('SIGSTOP');
  }

  /** Lets a frozen Redis run again (SIGCONT; nothing for one that runs). */
  resumeRedis(): void {
    if (this.redis && isRunning(this.redis)) this.redis.proc.kill('SIGCONT');
  }

  async stopRedis(): Promise<void> {
    await this.redis?.kill('SIGKILL');
  }

  /** Stalls PostgreSQL for the instances: their connections stay open and nothing moves. */
  pauseDb(): void {
    this.pgRelay?.stall();
  }

  /** Lets the stalled bytes flow on (nothing for a relay that flows). */
  resumeDb(): void {
    this.pgRelay?.resume();
  }

  /** Ends every PostgreSQL session the instances hold, as a failover does. */
  async terminateDbSessions(): Promise<number> {
    if (this.o.backend !== 'postgres') return 0;
    return terminateSessionsOf(this.o.pgUrl, this.live().map((m) => m.proc.pid!));
  }

  /** The market's store, read by the invariants (the test oracle's view, never a trader's). */
  async withDb<T>(fn: (q: (text: string, params?: unknown[]) => Promise<any[]>) => Promise<T>): Promise<T> {
    if (this.o.backend === 'postgres') {
      const c = new pg.Client({ connectionString: this.o.pgUrl, options: `-c search_path=${this.schema}` });
      await c.connect();
      try {
        return await fn(async (text, params = []) => {
          let n = 0;
          return (await c.query(text.replace(/\?/g, () => `$${++n}`), params as any[])).rows;
        });
      } finally {
        await c.end();
      }
    }
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path.join(this.o.dir, 'market.sqlite'), { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      return await fn(async (text, params = []) => db.prepare(text).all(...(params as any[])));
    } finally {
      db.close();
    }
  }

  /** A devnet control route. */
  async control(route: string, body: unknown = {}): Promise<any> {
    const r = await fetch(`${this.devnet.url}/devnet/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const j = (await r.json()) as any;
    if (r.status !== 200) throw new Error(`devnet ${route}: ${r.status} ${JSON.stringify(j)}`);
    return j.result;
  }

  /** An operator's restart of the real node (`--core`): the market loses it for a while, and its mempool for good. */
  async restartNode(): Promise<void> {
    await this.core?.restart();
  }

  /** A JSON-RPC call to the node itself (not through the relay proxy). */
  async rpc(method: string, params: unknown[] = []): Promise<any> {
    if (this.core) return this.core.rpc(method, params);
    const r = await fetch(this.devnet.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }) });
    const j = (await r.json()) as { result: unknown; error: { message: string } | null };
    if (j.error) throw new Error(`${method}: ${j.error.message}`);
    return j.result;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const m of this.markets) await m?.kill('SIGKILL').catch(() => {});
    await this.signer?.kill('SIGKILL').catch(() => {});
    await this.devnet?.kill('SIGKILL').catch(() => {});
    await this.core?.stop().catch(() => {});
    await this.redis?.kill('SIGKILL').catch(() => {});
    await this.proxy?.close().catch(() => {});
    await this.pgRelay?.close().catch(() => {});
    if (this.schema) await dropSchema(this.o.pgUrl, this.schema).catch(() => {});
  }
}
