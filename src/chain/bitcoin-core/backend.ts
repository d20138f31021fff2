/**
 * BitcoinBackend over Bitcoin Core's JSON-RPC. Reads are retried on transport
 * failures; sendrawtransaction and submitpackage get exactly one attempt, so a
 * timeout there surfaces as UpstreamUnavailable (outcome unknown) for the
 * settlement journal to reconcile. `getrawtransaction` for confirmed
 * transactions needs `-txindex=1` on the node.
 */
import type {
  AcceptResult,
  BitcoinBackend,
  ChainBlock,
  ChainTip,
  ChainTransaction,
  ChainUtxo,
  FeeEstimates,
  MempoolEntry,
  NodeDescription,
  PackageResult,
} from '../ports.js';
import { DEFAULT_FEE_TARGETS, estimateRate, feeEstimatesFrom, minimumRate, type FeeTargets } from './fees.js';
import { acceptResultOf, interpretBroadcastError, interpretPackageError, packageResultOf, txidOfHex } from './relay.js';
import type { ChainLogger, RetryPolicy } from '../upstream-http.js';
import { BitcoinRpcClient, RPC, RpcError } from './rpc-client.js';
import {
  addressOf,
  btcToSats,
  type EstimateSmartFeeReply,
  type GetBlockchainInfoReply,
  type GetBlockHeaderReply,
  type GetBlockV2Reply,
  type GetMempoolEntryReply,
  type GetMempoolInfoReply,
  type GetRawTransactionReply,
  type GetTxOutReply,
  type SubmitPackageReply,
  type TestMempoolAcceptEntry,
} from './rpc-types.js';

export interface BitcoinCoreOptions {
  /** `http://user:pass@host:8332` (a `/wallet/<name>` path is kept). */
  url: string;
  /** Per-request timeout for reads, ms (default 15000). */
  timeoutMs?: number;
  /** Timeout of sendrawtransaction/submitpackage, ms (default 30000). */
  broadcastTimeoutMs?: number;
  /** Retries of reads (default 3 retries, 250 ms doubling, ≤ 5 s). */
  retry?: Partial<RetryPolicy>;
  /** Confirmation targets of the named fee rates (default 1/3/6/144 blocks). */
  feeTargets?: Partial<FeeTargets>;
  logger?: ChainLogger;
}

const ZERO_HASH = '0'.repeat(64);

/** Null for "no such thing" answers (-5 unknown hash/tx, -8 height out of range); rethrows the rest. */
function nullIfMissing(e: unknown, codes: number[]): null {
  if (e instanceof RpcError && codes.includes(e.code)) return null;
  throw e;
}

export class BitcoinCoreBackend implements BitcoinBackend {
  readonly kind = 'bitcoin-core' as const;
  private readonly rpc: BitcoinRpcClient;
  private readonly broadcastTimeoutMs: number;
  private readonly feeTargets: FeeTargets;

  constructor(opts: BitcoinCoreOptions) {
    this.rpc = new BitcoinRpcClient({ url: opts.url, timeoutMs: opts.timeoutMs, retry: opts.retry, logger: opts.logger });
    this.broadcastTimeoutMs = opts.broadcastTimeoutMs ?? 30_000;
    this.feeTargets = { ...DEFAULT_FEE_TARGETS, ...opts.feeTargets };
  }

  private read<T>(method: string, params: unknown[]): Promise<T> {
    return this.rpc.call<T>(method, params, { idempotent: true });
  }

  async getBestBlockHash(): Promise<string> {
    return this.read<string>('getbestblockhash', []);
  }

  async getTip(): Promise<ChainTip> {
    const info = await this.read<GetBlockchainInfoReply>('getblockchaininfo', []);
    return { height: info.blocks, hash: info.bestblockhash };
  }

  /**
   * getnetworkinfo (version), getblockchaininfo (chain, IBD, pruning) and getindexinfo (txindex:
   * getrawtransaction of a confirmed transaction needs it; without it the market cannot read a
   * confirmed parent by txid). Bitcoin Core 29 is what the market is built and tested against.
   */
  async describeNode(): Promise<NodeDescription> {
    const [net, info, index] = await Promise.all([
      this.read<{ version: number; subversion: string }>('getnetworkinfo', []),
      this.read<GetBlockchainInfoReply & { pruned?: boolean }>('getblockchaininfo', []),
      this.read<Record<string, { synced: boolean; best_block_height: number }>>('getindexinfo', []).catch(() => null),
    ]);
    const major = Math.floor(net.version / 10_000);
    const version = `Bitcoin Core ${major}.${Math.floor(net.version / 100) % 100}.${net.version % 100} (${net.subversion})`;
    const networks: Record<string, string> = { main: 'mainnet', test: 'testnet3', testnet4: 'testnet4', signet: 'signet', regtest: 'regtest' };
    const notes: string[] = [`height ${info.blocks}`];
    const problems: string[] = [];
    const ibd = info.initialblockdownload === true;
    // Catching up passes by itself: a note and `ready: false`, not a problem (startup-check.ts).
    if (ibd) notes.push(`initial block download: ${info.blocks} of ${info.headers} headers`);
    if (major < 28) problems.push(`version ${major}: the market expects Bitcoin Core 28 or newer (29 recommended): package relay (submitpackage, TRUC) and full-RBF defaults`);
    const txindex = index?.txindex;
    if (!index) problems.push('getindexinfo failed: cannot tell whether txindex is on');
    else if (!txindex) problems.push('txindex is off: start bitcoind with -txindex=1 (confirmed transactions are read by txid)');
    else notes.push(txindex.synced ? 'txindex on' : `txindex building (${txindex.best_block_height})`);
    if (info.pruned) notes.push('pruned');
    return { version, network: networks[info.chain] ?? info.chain, ready: !ibd, notes, problems };
  }

  async getBlockHash(height: number): Promise<string | null> {
    return this.read<string>('getblockhash', [height]).catch((e) => nullIfMissing(e, [RPC.INVALID_PARAMETER]));
  }

  async getBlock(hash: string): Promise<ChainBlock | null> {
    const block = await this.read<GetBlockV2Reply>('getblock', [hash, 2]).catch((e) =>
      nullIfMissing(e, [RPC.INVALID_ADDRESS_OR_KEY]),
    );
    if (!block) return null;
    return {
      height: block.height,
      hash: block.hash,
      prev_hash: block.previousblockhash ?? ZERO_HASH,
      time: block.time,
      txs: block.tx.map((t) => ({ txid: t.txid, hex: t.hex })),
    };
  }

  async getTransaction(txid: string): Promise<ChainTransaction | null> {
    const tx = await this.read<GetRawTransactionReply>('getrawtransaction', [txid, true]).catch((e) =>
      nullIfMissing(e, [RPC.INVALID_ADDRESS_OR_KEY]),
    );
    if (!tx) return null;
    // No block: the mempool's copy (Core looks in the mempool first).
    if (!tx.blockhash) return { txid: tx.txid, hex: tx.hex, confirmations: 0, block_hash: null, block_height: null };
    const confirmations = tx.confirmations ?? 0;
    // A block hash with 0 confirmations is txindex's entry for a block a reorganization took off
    // the active chain, and the transaction is not in the mempool either (Core would have
    // answered the mempool's copy, without a block): in neither the mempool nor the chain, as if
    // unknown. Read as unconfirmed, a settlement mined in a reorged block and then lost from the
    // mempool (a node restart) was taken for pending and never relayed again (a day on Core 29.2,
    // seed 9148, docs/simulation.md).
    if (confirmations <= 0) return null;
    // Two reads, and a reorganization can fall between them: the block left the active chain
    // (Core answers its header with confirmations -1; a node that forgot it, -5). The
    // transaction is then unconfirmed, as a read after the reorg says (seed 6007: a 500 on a
    // listing preflight during a reorg).
    const header = await this.read<GetBlockHeaderReply>('getblockheader', [tx.blockhash, true]).catch((e) => nullIfMissing(e, [RPC.INVALID_ADDRESS_OR_KEY]));
    if (!header || header.confirmations < 1) return { txid: tx.txid, hex: tx.hex, confirmations: 0, block_hash: null, block_height: null };
    return { txid: tx.txid, hex: tx.hex, confirmations, block_hash: tx.blockhash, block_height: header.height };
  }

  async getTxOut(txid: string, vout: number, includeMempool = true): Promise<ChainUtxo | null> {
    const out = await this.read<GetTxOutReply | null>('gettxout', [txid, vout, includeMempool]);
    if (!out) return null;
    return {
      txid,
      vout,
      value_sats: btcToSats(out.value),
      script_hex: out.scriptPubKey.hex,
      address: addressOf(out.scriptPubKey),
      confirmations: out.confirmations,
      coinbase: out.coinbase,
    };
  }

  async getMempoolEntry(txid: string): Promise<MempoolEntry | null> {
    const entry = await this.read<GetMempoolEntryReply>('getmempoolentry', [txid]).catch((e) =>
      nullIfMissing(e, [RPC.INVALID_ADDRESS_OR_KEY]),
    );
    if (!entry) return null;
    return {
      txid,
      vsize: entry.vsize,
      fee_sats: btcToSats(entry.fees?.base ?? entry.fee ?? 0),
      ancestor_count: entry.ancestorcount,
      descendant_count: entry.descendantcount,
      time: entry.time,
    };
  }

  /** Four estimates and the mempool floor in one batched request. */
  async estimateFees(): Promise<FeeEstimates> {
    const names = ['fastest', 'half_hour', 'hour', 'economy'] as const;
    const replies = await this.rpc.batch([
      ...names.map((n) => ({ method: 'estimatesmartfee', params: [this.feeTargets[n]] })),
      { method: 'getmempoolinfo', params: [] },
    ]);
    const info = replies[names.length];
    if (info instanceof RpcError) throw info;
    const rates = Object.fromEntries(
      names.map((n, i) => {
        const r = replies[i];
        // An estimator error (e.g. disabled with -blocksonly) just means "no data".
        return [n, r instanceof RpcError ? null : estimateRate(r as EstimateSmartFeeReply)];
      }),
    ) as Record<(typeof names)[number], number | null>;
    return feeEstimatesFrom(rates, minimumRate(info as GetMempoolInfoReply));
  }

  async testAccept(hexes: string[]): Promise<AcceptResult[]> {
    if (hexes.length === 0) return [];
    // A read: nothing is relayed, so retrying it is safe.
    const entries = await this.read<TestMempoolAcceptEntry[]>('testmempoolaccept', [hexes]).catch((e: unknown) => {
      if (e instanceof RpcError) interpretPackageError(e);
      throw e;
    });
    return entries.map(acceptResultOf);
  }

  async broadcast(rawHex: string): Promise<string> {
    const txid = txidOfHex(rawHex);
    try {
      return await this.rpc.call<string>('sendrawtransaction', [rawHex], { idempotent: false, timeoutMs: this.broadcastTimeoutMs });
    } catch (e) {
      if (!(e instanceof RpcError)) throw e;
      interpretBroadcastError(e, txid);
      if (!txid) throw e;
      return txid;
    }
  }

  async submitPackage(hexes: string[]): Promise<PackageResult> {
    let reply: SubmitPackageReply;
    try {
      reply = await this.rpc.call<SubmitPackageReply>('submitpackage', [hexes], {
        idempotent: false,
        timeoutMs: this.broadcastTimeoutMs,
      });
    } catch (e) {
      if (e instanceof RpcError) interpretPackageError(e);
      throw e;
    }
    return packageResultOf(reply, hexes);
  }
}
