/**
 * Bitcoin Core JSON-RPC shaped views of the devnet, for the HTTP face that serves `/` as a
 * Bitcoin Core RPC endpoint. Each method is named after its RPC and returns the `result` Core
 * would; errors are `DevnetRpcError` with Core's code and message (`TxRejected` from the
 * transaction-submitting calls carries Core's code in `rpcCode` and its message in `reason`).
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import { difficulty } from './block-builder.js';
import type { BlockRecord } from './chain-state.js';
import type { Devnet } from './devnet.js';
import type { MempoolEntry } from './mempool.js';
import type { PackageOutcome } from './node.js';
import { blockBytes, scriptPubKeyJson, toBtc, txJson } from './tx-json.js';
import { decodeTx, TxDecodeError, type DecodedTx } from './tx-decode.js';
import { rejectText, RPC_DESERIALIZATION_ERROR, type Verdict } from './validation.js';

export class DevnetRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'DevnetRpcError';
  }
}

const RPC_INVALID_PARAMETER = -8;
const RPC_INVALID_ADDRESS_OR_KEY = -5;

export class BitcoinRpcViews {
  constructor(private readonly d: Devnet) {}

  private get node() {
    return this.d.state;
  }

  private chainwork(height: number): string {
    // Each regtest block (target ≈ 2^255) adds 2 units of work.
    return (BigInt(height + 1) * 2n).toString(16).padStart(64, '0');
  }

  getblockchaininfo() {
    const tip = this.node.chain.tip();
    return {
      chain: 'regtest', blocks: tip.height, headers: tip.height, bestblockhash: tip.hash, difficulty: difficulty(tip.bits),
      time: tip.time, mediantime: this.node.chain.medianTimePast(tip.height), verificationprogress: 1, initialblockdownload: false,
      chainwork: this.chainwork(tip.height), size_on_disk: 0, pruned: false, warnings: '',
    };
  }

  getblockcount(): number {
    return this.node.chain.height;
  }

  getbestblockhash(): string {
    return this.node.chain.tip().hash;
  }

  getblockhash(height: number): string {
    const b = this.node.chain.block(height);
    if (!b) throw new DevnetRpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
    return b.hash;
  }

  private blockByHash(hash: string): BlockRecord {
    const h = this.node.chain.heightOf(hash);
    if (h === undefined) throw new DevnetRpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
    return this.node.chain.block(h)!;
  }

  getblockheader(hash: string, verbose = true) {
    const b = this.blockByHash(hash);
    if (!verbose) return bytesToHex(b.header);
    const next = this.node.chain.block(b.height + 1);
    const v = new DataView(b.header.buffer, b.header.byteOffset, 80);
    return {
      hash: b.hash, confirmations: this.node.chain.height - b.height + 1, height: b.height, version: v.getUint32(0, true),
      versionHex: v.getUint32(0, true).toString(16).padStart(8, '0'), merkleroot: bytesToHex(b.header.slice(36, 68).reverse()),
      time: b.time, mediantime: this.node.chain.medianTimePast(b.height), nonce: v.getUint32(76, true), bits: b.bits.toString(16),
      difficulty: difficulty(b.bits), chainwork: this.chainwork(b.height), nTx: b.txs.length,
      ...(b.height > 0 ? { previousblockhash: b.prevHash } : {}), ...(next ? { nextblockhash: next.hash } : {}),
    };
  }

  /** `getblock <hash> <verbosity>`: 0 hex, 1 txids, 2 transactions (with `fee` in BTC). */
  getblock(hash: string, verbosity = 1) {
    const b = this.blockByHash(hash);
    if (verbosity === 0) return bytesToHex(blockBytes(b.header, b.txs));
    const header = this.getblockheader(hash, true) as Exclude<ReturnType<BitcoinRpcViews['getblockheader']>, string>;
    const size = blockBytes(b.header, b.txs).length;
    const stripped = 80 + 1 + b.txs.reduce((n, t) => n + t.baseSize, 0);
    const fees = new Map<string, bigint>();
    let spentAt = 0;
    for (const t of b.txs) {
      if (t.isCoinbase) continue;
      const inValue = b.spent.slice(spentAt, spentAt + t.inputs.length).reduce((s, c) => s + c.value, 0n);
      spentAt += t.inputs.length;
      fees.set(t.txid, inValue - t.outputs.reduce((s, o) => s + o.value, 0n));
    }
    const tx = verbosity >= 2
      ? b.txs.map((t) => ({ ...txJson(t, this.d.network), ...(fees.has(t.txid) ? { fee: toBtc(fees.get(t.txid)!) } : {}), hex: t.hex }))
      : b.txs.map((t) => t.txid);
    return { ...header, strippedsize: stripped, size, weight: stripped * 3 + size, tx };
  }

  /**
   * `getrawtransaction <txid> <verbose>`: the mempool first, then the chain (the devnet indexes
   * every transaction, as Core with -txindex), then, as Core's txindex, the block a reorganization
   * took away (its hash and 0 confirmations, no times).
   */
  getrawtransaction(txid: string, verbose = false) {
    const pooled = this.node.mempool.get(txid);
    const confirmed = pooled ? undefined : this.node.chain.confirmedTx(txid);
    const stale = pooled || confirmed ? undefined : this.node.chain.staleTx.get(txid);
    const tx = pooled?.tx ?? confirmed?.tx ?? stale?.tx;
    if (!tx) throw new DevnetRpcError(RPC_INVALID_ADDRESS_OR_KEY, 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.');
    if (!verbose) return tx.hex;
    const block = confirmed?.block;
    return {
      ...txJson(tx, this.d.network), hex: tx.hex,
      ...(block ? { blockhash: block.hash, confirmations: this.node.chain.height - block.height + 1, time: block.time, blocktime: block.time } : {}),
      ...(stale ? { blockhash: stale.hash, confirmations: 0 } : {}),
    };
  }

  /** `decoderawtransaction <hex>`; -22 when the bytes do not parse. */
  decoderawtransaction(hex: string) {
    try {
      return txJson(decodeTx(hex), this.d.network);
    } catch (e) {
      if (e instanceof TxDecodeError) throw new DevnetRpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed');
      throw e;
    }
  }

  /** `sendrawtransaction <hex>`: the txid, or TxRejected (JSON-RPC error `{code: rpcCode, message: reason}`). */
  sendrawtransaction(hex: string): Promise<string> {
    return this.d.sendRawTransaction(hex);
  }

  /** `testmempoolaccept [hex…]` (1 to 25 transactions). */
  testmempoolaccept(rawtxs: string[]) {
    if (!Array.isArray(rawtxs) || rawtxs.length < 1 || rawtxs.length > 25) {
      return Promise.reject(new DevnetRpcError(RPC_INVALID_PARAMETER, 'Array must contain between 1 and 25 transactions.'));
    }
    return this.d.testMempoolAccept(rawtxs);
  }

  /** `submitpackage [hex…]`. */
  submitpackage(rawtxs: string[]) {
    return this.d.submitPackage(rawtxs);
  }

  /** `generatetoaddress <n> <address>`: block hashes. */
  generatetoaddress(blocks: number, address: string): Promise<string[]> {
    return this.d.mine(blocks, address);
  }

  /** `invalidateblock <hash>` (Core returns null). */
  async invalidateblock(hash: string): Promise<null> {
    if (this.node.chain.heightOf(hash) === undefined) throw new DevnetRpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
    await this.d.invalidateBlock(hash);
    return null;
  }

  /** `gettxout`: null when spent (in the mempool too when `includeMempool`) or unknown. */
  gettxout(txid: string, n: number, includeMempool = true) {
    const tip = this.node.chain.tip();
    if (includeMempool && this.node.mempool.spender(txid, n)) return null;
    const coin = this.node.chain.coin(txid, n);
    if (coin) {
      return { bestblock: tip.hash, confirmations: tip.height - coin.height + 1, value: toBtc(coin.value), scriptPubKey: scriptPubKeyJson(coin.script, this.d.network), coinbase: coin.coinbase };
    }
    const out = includeMempool ? this.node.mempool.output(txid, n) : undefined;
    if (!out || (out.script.length > 0 && out.script[0] === 0x6a)) return null;
    return { bestblock: tip.hash, confirmations: 0, value: toBtc(out.value), scriptPubKey: scriptPubKeyJson(out.script, this.d.network), coinbase: false };
  }

  mempoolEntry(e: MempoolEntry) {
    const pool = this.node.mempool;
    const anc = [...pool.ancestorsOf(e.parents)].map((t) => pool.get(t)!);
    const desc = pool.descendants(e.tx.txid).map((t) => pool.get(t)!);
    const sum = (list: MempoolEntry[], f: (x: MempoolEntry) => bigint | number) => list.reduce((s, x) => s + BigInt(f(x)), 0n);
    return {
      vsize: e.tx.vsize, weight: e.tx.weight, time: e.time, height: e.height,
      descendantcount: desc.length + 1, descendantsize: Number(sum(desc, (x) => x.tx.vsize)) + e.tx.vsize,
      ancestorcount: anc.length + 1, ancestorsize: Number(sum(anc, (x) => x.tx.vsize)) + e.tx.vsize, wtxid: e.tx.wtxid,
      fees: { base: toBtc(e.fee), modified: toBtc(e.fee), ancestor: toBtc(sum(anc, (x) => x.fee) + e.fee), descendant: toBtc(sum(desc, (x) => x.fee) + e.fee) },
      depends: [...e.parents], spentby: [...e.children], 'bip125-replaceable': false, unbroadcast: false,
    };
  }

  getmempoolentry(txid: string) {
    const e = this.node.mempool.get(txid);
    if (!e) throw new DevnetRpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
    return this.mempoolEntry(e);
  }

  getrawmempool(verbose = false) {
    const entries = this.node.mempool.ordered();
    if (!verbose) return entries.map((e) => e.tx.txid);
    return Object.fromEntries(entries.map((e) => [e.tx.txid, this.mempoolEntry(e)]));
  }

  getmempoolinfo() {
    const entries = this.node.mempool.ordered();
    const relay = Number(this.node.params.minRelayFeeRate) / 1e8;
    const incremental = Number(this.node.params.incrementalRelayFeeRate) / 1e8;
    return {
      loaded: true, size: entries.length, bytes: entries.reduce((n, e) => n + e.tx.vsize, 0), usage: entries.reduce((n, e) => n + e.tx.size, 0),
      total_fee: toBtc(entries.reduce((s, e) => s + e.fee, 0n)), maxmempool: 300_000_000, mempoolminfee: relay, minrelaytxfee: relay,
      incrementalrelayfee: incremental, unbroadcastcount: 0, fullrbf: true,
    };
  }

  /** `estimatesmartfee`: the devnet's configured estimates (sat/vB) as BTC/kvB. */
  estimatesmartfee(confTarget: number) {
    const f = this.d.feeEstimates;
    const rate = confTarget <= 1 ? f.fastest : confTarget <= 3 ? f.half_hour : confTarget <= 6 ? f.hour : f.economy;
    return { feerate: (Math.max(rate, f.minimum) * 1000) / 1e8, blocks: Math.max(1, confTarget) };
  }

  /** Core 29's testmempoolaccept entries; a member validation did not reach has no `allowed`. */
  testAcceptReply(results: { tx: DecodedTx; verdict: Verdict | null }[]) {
    return results.map(({ tx, verdict }) =>
      verdict === null
        ? { txid: tx.txid, wtxid: tx.wtxid }
        : verdict.ok
          ? { txid: tx.txid, wtxid: tx.wtxid, allowed: true as const, vsize: tx.vsize, fees: { base: toBtc(verdict.fee), 'effective-feerate': toBtc((verdict.fee * 1000n) / BigInt(tx.vsize)), 'effective-includes': [tx.wtxid] } }
          : verdict.reject.reason === 'bad-txns-inputs-missingorspent'
            // testmempoolaccept names a missing input `missing-inputs`, without details.
            ? { txid: tx.txid, wtxid: tx.wtxid, allowed: false as const, 'reject-reason': 'missing-inputs' }
            : { txid: tx.txid, wtxid: tx.wtxid, allowed: false as const, 'reject-reason': verdict.reject.reason, 'reject-details': rejectText(verdict.reject) },
    );
  }

  /**
   * Core 29's submitpackage reply: each evaluated member under its wtxid (in the mempool: vsize
   * and fees, with the effective feerate when this call added it; refused: its `error`); a
   * member validation never reached is left out, as Core leaves it.
   */
  packageReply(o: PackageOutcome) {
    type Entry = { txid: string; 'other-wtxid'?: string; vsize?: number; fees?: { base: number; 'effective-feerate'?: number; 'effective-includes'?: string[] }; error?: string };
    const results: Record<string, Entry> = {};
    for (const r of o.results) {
      const txid = r.tx.txid;
      if (r.status === 'unevaluated') continue;
      if (r.status === 'refused') results[r.tx.wtxid] = { txid, error: rejectText(r.reject!) };
      else if (r.status === 'other-witness') results[r.tx.wtxid] = { txid, 'other-wtxid': this.node.mempool.get(txid)?.tx.wtxid ?? '' };
      else if (r.status === 'in-mempool') results[r.tx.wtxid] = { txid, vsize: r.tx.vsize, fees: { base: toBtc(r.fee ?? 0n) } };
      else {
        results[r.tx.wtxid] = {
          txid, vsize: r.tx.vsize,
          fees: { base: toBtc(r.fee ?? 0n), 'effective-feerate': toBtc(r.effective?.rate ?? 0n), 'effective-includes': r.effective?.wtxids ?? [r.tx.wtxid] },
        };
      }
    }
    return { package_msg: o.message, 'tx-results': results, 'replaced-transactions': [...new Set(o.replaced)] };
  }
}
