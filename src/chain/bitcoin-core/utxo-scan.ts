/**
 * The UtxoSource over Bitcoin Core alone: `scantxoutset start ["addr(<address>)"]`, no Electrs and
 * no wallet. What it costs (Core's `FindScriptPubKey`, rpc/blockchain.cpp): every call flushes the
 * coins cache and walks the whole chainstate with a LevelDB cursor, so one call reads every coin
 * of the UTXO set whatever the address holds; and a node runs one scan at a time (a second caller
 * gets -8 `Scan already in progress`). So scans here are serialized, and a wallet's coins are
 * kept for `cacheMs` per address and tip (a new block forgets them).
 *
 * It sees confirmed coins only (the chainstate, not the mempool): each coin found is checked with
 * `gettxout …, true`, which drops those a mempool transaction already spends.
 */
import { UpstreamUnavailable, type AddressUtxo, type UtxoSource } from '../ports.js';
import type { ChainLogger } from '../upstream-http.js';
import { BitcoinRpcClient, RPC, RpcError } from './rpc-client.js';
import { btcToSats } from './rpc-types.js';

interface ScanUnspent {
  txid: string;
  vout: number;
  scriptPubKey: string;
  amount: number;
  height: number;
  coinbase?: boolean;
}

interface ScanReply {
  success: boolean;
  txouts: number;
  height: number;
  bestblock: string;
  unspents: ScanUnspent[];
}

export interface BitcoinCoreUtxoOptions {
  url: string;
  /** One scan's timeout, ms (default 10 minutes: a mainnet scan reads the whole chainstate). */
  scanTimeoutMs?: number;
  /** How long one address's scan result is reused at the same tip, ms (default 30 s; 0: never). */
  cacheMs?: number;
  logger?: ChainLogger & { info?(obj: Record<string, unknown>, msg: string): void };
}

export class BitcoinCoreUtxoSource implements UtxoSource {
  readonly kind = 'bitcoin-core' as const;
  readonly seesMempool = false;
  private readonly rpc: BitcoinRpcClient;
  private readonly scanTimeoutMs: number;
  private readonly cacheMs: number;
  private readonly logger: BitcoinCoreUtxoOptions['logger'];
  /** Scans run one after another: the node refuses a second one anyway. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly cache = new Map<string, { at: number; tip: string; utxos: AddressUtxo[] }>();
  /** The last scan's figures, for the readiness probe and the operator. */
  lastScan: { address: string; txouts: number; ms: number; height: number } | null = null;

  constructor(opts: BitcoinCoreUtxoOptions) {
    this.rpc = new BitcoinRpcClient({ url: opts.url, logger: opts.logger, retry: { retries: 1 } });
    this.scanTimeoutMs = opts.scanTimeoutMs ?? 600_000;
    this.cacheMs = opts.cacheMs ?? 30_000;
    this.logger = opts.logger;
  }

  async getAddressUtxos(address: string): Promise<AddressUtxo[]> {
    const tip = await this.rpc.call<string>('getbestblockhash', [], { idempotent: true });
    const hit = this.cache.get(address);
    if (hit && hit.tip === tip && Date.now() - hit.at < this.cacheMs) return hit.utxos.map((u) => ({ ...u }));
    const run = this.queue.then(() => this.scan(address));
    this.queue = run.catch(() => undefined);
    const reply = await run;
    const utxos: AddressUtxo[] = [];
    for (const u of reply.unspents) {
      // The scan reads the chainstate; a coin a mempool transaction spends is still in it.
      const live = await this.rpc.call<unknown>('gettxout', [u.txid, u.vout, true], { idempotent: true });
      if (live === null) continue;
      utxos.push({ txid: u.txid, vout: u.vout, value_sats: btcToSats(u.amount), height: u.height, confirmations: Math.max(0, reply.height - u.height + 1) });
    }
    this.cache.set(address, { at: Date.now(), tip: reply.bestblock, utxos });
    return utxos.map((u) => ({ ...u }));
  }

  /** `scantxoutset status` answers null when idle: cheap, and proves the node serves the call. */
  async probe(): Promise<string> {
    try {
      const status = await this.rpc.call<{ progress: number } | null>('scantxoutset', ['status'], { idempotent: true });
      const busy = status ? `, a scan is running (${status.progress}%)` : '';
      const last = this.lastScan ? `, last scan ${this.lastScan.ms} ms over ${this.lastScan.txouts} coins at height ${this.lastScan.height}` : '';
      return `bitcoin-core scantxoutset${busy}${last}`;
    } catch (e) {
      if (e instanceof RpcError && e.code === RPC.METHOD_NOT_FOUND) throw new Error('bitcoin-core does not serve scantxoutset (Bitcoin Core ≥ 0.17 does; is the RPC whitelisted?)');
      throw e;
    }
  }

  private async scan(address: string): Promise<ScanReply> {
    const started = Date.now();
    let reply: ScanReply;
    try {
      reply = await this.rpc.call<ScanReply>('scantxoutset', ['start', [`addr(${address})`]], { idempotent: false, timeoutMs: this.scanTimeoutMs });
    } catch (e) {
      if (e instanceof RpcError && e.code === RPC.INVALID_PARAMETER && /in progress/i.test(e.rpcMessage)) {
        // Another client of the node is scanning: the node serves one at a time.
        throw new UpstreamUnavailable('bitcoin', 'bitcoin scantxoutset: another scan is in progress on the node', 503, { retryAfterSeconds: 30 });
      }
      if (e instanceof RpcError) throw new UpstreamUnavailable('bitcoin', `bitcoin scantxoutset: ${e.code} ${e.rpcMessage}`, 502);
      // Our wait ended, the node's scan did not: abort it so the next caller is not refused.
      if (e instanceof UpstreamUnavailable) void this.rpc.call('scantxoutset', ['abort'], { idempotent: false }).catch(() => undefined);
      throw e;
    }
    if (!reply || reply.success !== true || !Array.isArray(reply.unspents)) {
      throw new UpstreamUnavailable('bitcoin', 'bitcoin scantxoutset: the scan did not complete', 503, { retryAfterSeconds: 30 });
    }
    const ms = Date.now() - started;
    this.lastScan = { address, txouts: reply.txouts, ms, height: reply.height };
    this.logger?.info?.({ backend: 'bitcoin', call: 'scantxoutset', txouts: reply.txouts, found: reply.unspents.length, ms }, 'utxo scan');
    return reply;
  }
}
