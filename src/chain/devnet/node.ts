/**
 * The devnet node in memory: chain, mempool and Counterparty ledger, and the operations that
 * move them together (accept, package, mine, disconnect). No I/O here: `Devnet` serialises
 * calls, persists what changed and exposes the API.
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import { assembleHeader, blockSubsidy, buildCoinbase, REGTEST_GENESIS } from './block-builder.js';
import { ChainState, type BlockRecord } from './chain-state.js';
import type { ControlOp } from './control-ops.js';
import { BlockParser, type LedgerParams } from './ledger-apply.js';
import { CpLedger } from './ledger.js';
import { Mempool, type MempoolEntry } from './mempool.js';
import { decodeTx, type DecodedTx } from './tx-decode.js';
import { checkMempoolAccept, feeFor, RPC_VERIFY_REJECTED, type AcceptOptions, type Reject, type Verdict } from './validation.js';
import type { InputVerifier } from './verifier.js';

export interface NodeParams {
  ledger: LedgerParams;
  /** sat/kvB. */
  minRelayFeeRate: bigint;
  verify: InputVerifier;
}

/** One package member's outcome (Core's `tx-results` entry). */
export interface PackageMemberResult {
  tx: DecodedTx;
  /** Already in the mempool before the package (Core reports it without an error). */
  alreadyInMempool: boolean;
  fee?: bigint;
  reject?: Reject;
}

export interface PackageOutcome {
  ok: boolean;
  /** Mempool transactions the members replaced (Core's `replaced-transactions`). */
  replaced: string[];
  /** Core's `package_msg`: `success`, `transaction failed`, or a package policy reason. */
  message: string;
  results: PackageMemberResult[];
}

const MAX_BLOCK_WEIGHT = 4_000_000;

export class DevnetNode {
  chain = new ChainState();
  mempool = new Mempool();
  ledger = new CpLedger();
  pendingOps: ControlOp[] = [];
  private parser: BlockParser;

  constructor(readonly params: NodeParams) {
    this.parser = new BlockParser(this.ledger, params.ledger);
  }

  /** Starts an empty node at Bitcoin's regtest genesis block. */
  connectGenesis(): BlockRecord {
    return this.connectBlock({ hash: REGTEST_GENESIS.hash, header: hexToBytes(REGTEST_GENESIS.header), txs: [decodeTx(REGTEST_GENESIS.coinbase)], ops: [] });
  }

  /** Connects a block to chain and ledger and drops its transactions (and conflicts) from the mempool. */
  connectBlock(b: { hash: string; header: Uint8Array; txs: DecodedTx[]; ops: ControlOp[] }): BlockRecord {
    const height = this.chain.height + 1;
    const time = new DataView(b.header.buffer, b.header.byteOffset, 80).getUint32(68, true);
    const bits = new DataView(b.header.buffer, b.header.byteOffset, 80).getUint32(72, true);
    const prevHash = height > 0 ? this.chain.tip().hash : '00'.repeat(32);
    const session = this.parser.begin({ height, hash: b.hash, time, bits, prevHash });
    try {
      b.ops.forEach((op, i) => session.op(op, i));
      const record = this.chain.connect(b, (tx, prevouts) => session.tx(tx, prevouts));
      session.end();
      for (const tx of b.txs) {
        if (this.mempool.get(tx.txid)) this.mempool.remove(tx.txid);
        for (const i of tx.inputs) {
          const spender = this.mempool.spender(i.txid, i.vout);
          if (spender) this.mempool.removeWithDescendants(spender);
        }
      }
      return record;
    } catch (e) {
      // A block that does not connect must leave nothing behind.
      this.ledger.endBlock();
      this.ledger.rollbackBlock(height);
      throw e;
    }
  }

  disconnectTip(): BlockRecord {
    const height = this.chain.height;
    this.ledger.rollbackBlock(height);
    return this.chain.disconnectTip();
  }

  verdict(tx: DecodedTx, pool: Mempool, now: number, extra: Pick<AcceptOptions, 'bypassLimits' | 'packageFeerates' | 'allowReplacement' | 'allowSiblingEviction'> = {}): Verdict {
    return checkMempoolAccept(tx, this.chain, pool, this.params.verify, { now, minRelayFeeRate: this.params.minRelayFeeRate, ...extra });
  }

  /**
   * Validates and adds one transaction, evicting what it replaces; the verdict says why not.
   * Re-accepting (bypassLimits: a reorg, a restart) never replaces: the first spend stays.
   */
  accept(tx: DecodedTx, now: number, extra: { bypassLimits?: boolean; seq?: number } = {}): { ok: true; entry: MempoolEntry; replaced: MempoolEntry[] } | { ok: false; reject: Reject } {
    const v = this.verdict(tx, this.mempool, now, extra.bypassLimits ? { bypassLimits: true } : { allowReplacement: true, allowSiblingEviction: true });
    if (!v.ok) return v;
    return { ok: true, ...this.admit(v, now, extra.seq) };
  }

  /** Adds an accepted transaction, evicting what its verdict replaces. */
  admit(v: Extract<Verdict, { ok: true }>, now: number, seq?: number): { entry: MempoolEntry; replaced: MempoolEntry[] } {
    const replaced = evict(this.mempool, v.replaced);
    const entry = this.mempool.add({ tx: v.tx, fee: v.fee, time: now, height: this.chain.height, ...(seq === undefined ? {} : { seq }) });
    return { entry, replaced };
  }

  /**
   * `testmempoolaccept`: one transaction may replace (as Core's single test accept); several
   * are a package test, where any conflict is `bip125-replacement-disallowed`.
   */
  testAccept(txs: DecodedTx[], now: number): { tx: DecodedTx; verdict: Verdict }[] {
    const scratch = this.mempool.clone();
    const single = txs.length === 1;
    return txs.map((tx) => {
      const verdict = this.verdict(tx, scratch, now, { allowReplacement: single, allowSiblingEviction: single });
      if (verdict.ok) scratch.add({ tx, fee: verdict.fee, time: now, height: this.chain.height });
      return { tx, verdict };
    });
  }

  /**
   * `submitpackage` for a child with its unconfirmed parents (Core 28): parents first, child
   * last, every parent spent by the child. Members are checked with package feerates (a TRUC
   * parent may pay nothing), then the package as a whole must pay the relay floor. All or none
   * enter the mempool.
   */
  acceptPackage(txs: DecodedTx[], now: number): PackageOutcome {
    const topology = packageTopologyError(txs);
    const results: PackageMemberResult[] = txs.map((tx) => ({ tx, alreadyInMempool: Boolean(this.mempool.get(tx.txid)) }));
    if (topology) return { ok: false, message: topology, results, replaced: [] };
    const scratch = this.mempool.clone();
    let fees = 0n;
    let vsize = 0;
    const replaced: string[] = [];
    for (const r of results) {
      if (r.alreadyInMempool) continue;
      // Each member replaces on its own fee (Core's first, individual attempt); package RBF,
      // where the child pays for its parent's replacement, is not emulated.
      const v = this.verdict(r.tx, scratch, now, { packageFeerates: true, allowReplacement: true });
      if (!v.ok) {
        r.reject = v.reject;
        return { ok: false, message: 'transaction failed', results, replaced: [] };
      }
      r.fee = v.fee;
      fees += v.fee;
      vsize += r.tx.vsize;
      replaced.push(...evict(scratch, v.replaced).map((e) => e.tx.txid));
      scratch.add({ tx: r.tx, fee: v.fee, time: now, height: this.chain.height });
    }
    const floor = feeFor(vsize, this.params.minRelayFeeRate);
    if (fees < floor) {
      results.at(-1)!.reject = { reason: 'min relay fee not met', debug: `${fees} < ${floor}`, rpcCode: RPC_VERIFY_REJECTED };
      return { ok: false, message: 'transaction failed', results, replaced: [] };
    }
    evict(this.mempool, replaced);
    for (const r of results) if (!r.alreadyInMempool) this.mempool.add({ tx: r.tx, fee: r.fee!, time: now, height: this.chain.height });
    return { ok: true, message: 'success', results, replaced };
  }

  /** Mempool transactions for the next block, in acceptance order, within the weight limit. */
  blockTemplate(): MempoolEntry[] {
    const picked: MempoolEntry[] = [];
    const inBlock = new Set<string>();
    let weight = 4_000;
    for (const e of this.mempool.ordered()) {
      if ([...e.parents].some((p) => !inBlock.has(p))) continue;
      if (weight + e.tx.weight > MAX_BLOCK_WEIGHT) continue;
      weight += e.tx.weight;
      picked.push(e);
      inBlock.add(e.tx.txid);
    }
    return picked;
  }

  /** Builds (but does not connect) the next block holding `entries` and `ops`. */
  buildBlock(p: { entries: MempoolEntry[]; ops: ControlOp[]; coinbaseScript: Uint8Array; time: number; extraNonce: Uint8Array }) {
    const height = this.chain.height + 1;
    const fees = p.entries.reduce((s, e) => s + e.fee, 0n);
    const txs = p.entries.map((e) => e.tx);
    const coinbase = buildCoinbase({
      height, script: p.coinbaseScript, value: blockSubsidy(height) + fees, extraNonce: p.extraNonce, wtxids: txs.map((t) => t.wtxid),
    });
    const all = [coinbase, ...txs];
    // Strictly increasing block times (always above the median time past), even on a frozen clock.
    const time = Math.max(p.time, this.chain.tip().time + 1);
    const { header, hash } = assembleHeader({ prevHash: this.chain.tip().hash, time, txids: all.map((t) => t.txid) });
    return { hash, header, txs: all, ops: p.ops };
  }
}

/** Removes replaced transactions (listed parents before children) from `pool`; returns their entries. */
function evict(pool: Mempool, txids: readonly string[]): MempoolEntry[] {
  const out: MempoolEntry[] = [];
  for (const t of [...txids].reverse()) {
    const e = pool.remove(t);
    if (e) out.unshift(e);
  }
  return out;
}

/** Core's package checks, reduced to what a child-with-parents package needs. */
function packageTopologyError(txs: DecodedTx[]): string | null {
  if (txs.length < 2) return 'package topology disallowed. not child-with-parents or parents depend on each other.';
  if (txs.length > 25) return 'package-too-many-transactions';
  const ids = new Set(txs.map((t) => t.txid));
  if (ids.size !== txs.length) return 'package-contains-duplicates';
  const spent = new Set<string>();
  for (const t of txs) {
    for (const i of t.inputs) {
      const k = `${i.txid}:${i.vout}`;
      if (spent.has(k)) return 'conflict-in-package';
      spent.add(k);
    }
  }
  const child = txs.at(-1)!;
  const parents = txs.slice(0, -1);
  const childSpends = new Set(child.inputs.map((i) => i.txid));
  const parentIds = new Set(parents.map((p) => p.txid));
  for (const p of parents) {
    if (!childSpends.has(p.txid)) return 'package topology disallowed. not child-with-parents or parents depend on each other.';
    if (p.inputs.some((i) => parentIds.has(i.txid))) return 'package topology disallowed. not child-with-parents or parents depend on each other.';
  }
  return null;
}
