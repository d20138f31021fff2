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
import { packageReplacementChecks } from './package-rbf.js';
import { feeRatePerKvB } from './rbf.js';
import type { InputVerifier } from './verifier.js';

export interface NodeParams {
  ledger: LedgerParams;
  /** `-minrelaytxfee`, sat/kvB. */
  minRelayFeeRate: bigint;
  /** `-incrementalrelayfee`, sat/kvB. */
  incrementalRelayFeeRate: bigint;
  verify: InputVerifier;
}

/** One package member's outcome (Core's `tx-results` entry). */
export interface PackageMemberResult {
  tx: DecodedTx;
  /**
   * `accepted` (entered by this call), `in-mempool` (there before, same wtxid), `other-witness`
   * (same txid, other wtxid, there before), `refused` (its `reject`), `unevaluated` (validation
   * stopped before it: Core leaves it out of `tx-results`).
   */
  status: 'accepted' | 'in-mempool' | 'other-witness' | 'refused' | 'unevaluated';
  fee?: bigint;
  reject?: Reject;
  /** The feerate it was judged at (sat/kvB) and whose fees made it (wtxids): alone, or the package's. */
  effective?: { rate: bigint; wtxids: string[] };
}

export interface PackageOutcome {
  /** Every member is in the mempool. */
  ok: boolean;
  /** Mempool transactions the members replaced (Core's `replaced-transactions`). */
  replaced: string[];
  /** Core's `package_msg`: `success`, `transaction failed`, or a package policy reason. */
  message: string;
  results: PackageMemberResult[];
  /** Entries this call added to the mempool (members accepted alone or as a package). */
  added: MempoolEntry[];
  /**
   * The RPC error Core raises instead of a reply (a package that is not a child with its
   * parents): `-25` and its message.
   */
  rpcError?: string;
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

  verdict(tx: DecodedTx, pool: Mempool, now: number, extra: Pick<AcceptOptions, 'bypassLimits' | 'packageFeerates' | 'allowReplacement' | 'allowSiblingEviction' | 'deferReplacement'> = {}): Verdict {
    return checkMempoolAccept(tx, this.chain, pool, this.params.verify, {
      now, minRelayFeeRate: this.params.minRelayFeeRate, incrementalRelayFeeRate: this.params.incrementalRelayFeeRate, ...extra,
    });
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
   * `testmempoolaccept`. One transaction is judged as sendrawtransaction would (it may replace).
   * Several are a package test (Core's `PackageTestAccept`): no replacement (a conflict is
   * `bip125-replacement-disallowed`), no package feerate (each pays the floor itself), and
   * validation stops at the first failure: members before it whose script checks had not run
   * yet, and every member after it, are left `unevaluated` (Core returns them without `allowed`).
   */
  testAccept(txs: DecodedTx[], now: number): { tx: DecodedTx; verdict: Verdict | null }[] {
    const scratch = this.mempool.clone();
    const single = txs.length === 1;
    const out: { tx: DecodedTx; verdict: Verdict | null }[] = txs.map((tx) => ({ tx, verdict: null }));
    for (let k = 0; k < txs.length; k++) {
      const verdict = this.verdict(txs[k]!, scratch, now, { allowReplacement: single, allowSiblingEviction: single });
      out[k]!.verdict = verdict;
      if (verdict.ok) {
        scratch.add({ tx: txs[k]!, fee: verdict.fee, time: now, height: this.chain.height });
        continue;
      }
      // A PreChecks failure ends validation before any member's script checks ran.
      if (!verdict.reject.script) for (let j = 0; j < k; j++) out[j]!.verdict = null;
      break;
    }
    return out;
  }

  /**
   * `submitpackage` as Core 29's `AcceptPackage`: a child with its unconfirmed parents (child
   * last). Each member not already in the mempool is first tried alone (replacement and TRUC
   * sibling eviction allowed), and one that passes enters the mempool at once: a parent that
   * pays its own way stays even when its child then fails. Members refused alone for their
   * feerate or a missing (package) parent are then judged together with package feerates and
   * package RBF; any other refusal ends the attempt. Nothing is rolled back.
   */
  acceptPackage(txs: DecodedTx[], now: number): PackageOutcome {
    const results: PackageMemberResult[] = txs.map((tx) => ({ tx, status: 'unevaluated' }));
    const topology = packageTopologyError(txs, this.chain);
    if (topology) {
      const rpc = topology.startsWith('package topology disallowed');
      return { ok: false, message: topology, results, replaced: [], added: [], ...(rpc ? { rpcError: topology } : {}) };
    }
    const added: MempoolEntry[] = [];
    const replaced: string[] = [];
    const admitOne = (r: PackageMemberResult, v: Extract<Verdict, { ok: true }>) => {
      const done = this.admit(v, now);
      added.push(done.entry);
      replaced.push(...done.replaced.map((e) => e.tx.txid));
      r.status = 'accepted';
      r.fee = v.fee;
      r.reject = undefined;
      r.effective = { rate: feeRatePerKvB(v.fee, r.tx.vsize), wtxids: [r.tx.wtxid] };
    };
    let quitEarly = false;
    const retry: PackageMemberResult[] = [];
    for (const r of results) {
      const pooled = this.mempool.get(r.tx.txid);
      if (pooled) {
        r.status = pooled.tx.wtxid === r.tx.wtxid ? 'in-mempool' : 'other-witness';
        r.fee = pooled.fee;
        continue;
      }
      const v = this.verdict(r.tx, this.mempool, now, { allowReplacement: true, allowSiblingEviction: true });
      if (v.ok) admitOne(r, v);
      else {
        r.status = 'refused';
        r.reject = v.reject;
        if (txs.length === 1 || !v.reject.retry) quitEarly = true;
        else retry.push(r);
      }
    }
    let message = quitEarly ? 'transaction failed' : 'success';
    if (!quitEarly && retry.length === 1) {
      // One member left: tried alone again (its parent may have entered meanwhile).
      const r = retry[0]!;
      const v = this.verdict(r.tx, this.mempool, now, { allowReplacement: true, allowSiblingEviction: true });
      if (v.ok) admitOne(r, v);
      else {
        r.reject = v.reject;
        message = 'transaction failed';
      }
    } else if (!quitEarly && retry.length > 1) {
      message = this.acceptTogether(retry, now, added, replaced);
    }
    const ok = results.every((r) => r.status !== 'refused' && r.status !== 'unevaluated');
    return { ok, message: ok ? 'success' : message, results, replaced, added };
  }

  /**
   * Core's `AcceptMultipleTransactions` for the members refused alone: every member's checks on a
   * scratch mempool (conflicts collected, package feerates), the package's feerate against the
   * floor, package RBF when there are conflicts, then all enter or none. Returns `package_msg`;
   * a member's result changes only when the package judged it (else it keeps its refusal alone).
   */
  private acceptTogether(members: PackageMemberResult[], now: number, added: MempoolEntry[], replaced: string[]): string {
    const scratch = this.mempool.clone();
    const judged: Array<{ r: PackageMemberResult; v: Extract<Verdict, { ok: true }> }> = [];
    for (const r of members) {
      const v = this.verdict(r.tx, scratch, now, { allowReplacement: true, packageFeerates: true, deferReplacement: true });
      if (!v.ok) {
        r.reject = v.reject;
        return 'transaction failed';
      }
      judged.push({ r, v });
      scratch.add({ tx: r.tx, fee: v.fee, time: now, height: this.chain.height });
    }
    const fees = judged.reduce((s, j) => s + j.v.fee, 0n);
    const vsize = judged.reduce((s, j) => s + j.r.tx.vsize, 0);
    const floor = feeFor(vsize, this.params.minRelayFeeRate);
    if (fees < floor) {
      judged.at(-1)!.r.reject = { reason: 'min relay fee not met', debug: `${fees} < ${floor}`, rpcCode: RPC_VERIFY_REJECTED, retry: true };
      return 'transaction failed';
    }
    let evicted: string[] = [];
    if (judged.some((j) => j.v.conflicts.size > 0)) {
      const rbf = packageReplacementChecks(judged.map((j) => ({ tx: j.r.tx, fee: j.v.fee, conflicts: j.v.conflicts })), this.mempool, this.params.incrementalRelayFeeRate);
      if (!rbf.ok) return rbf.message;
      evicted = rbf.evicted;
    }
    replaced.push(...evict(this.mempool, evicted).map((e) => e.tx.txid));
    const rate = feeRatePerKvB(fees, vsize);
    const wtxids = judged.map((j) => j.r.tx.wtxid);
    for (const { r, v } of judged) {
      added.push(this.mempool.add({ tx: r.tx, fee: v.fee, time: now, height: this.chain.height }));
      r.status = 'accepted';
      r.fee = v.fee;
      r.reject = undefined;
      r.effective = { rate, wtxids };
    }
    return 'success';
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

const TOPOLOGY = 'package topology disallowed. not child-with-parents or parents depend on each other.';

/**
 * Core's package checks before validation: `IsWellFormedPackage` (count, duplicates, sorted, no
 * two members spending one outpoint), the child-with-parents shape (the RPC raises that one as
 * error -25), and every input of the child a package parent or a confirmed output.
 */
function packageTopologyError(txs: DecodedTx[], chain: ChainState): string | null {
  if (txs.length > 25) return 'package-too-many-transactions';
  const ids = new Set(txs.map((t) => t.txid));
  if (ids.size !== txs.length) return 'package-contains-duplicates';
  if (txs.length === 1) return null;
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
    if (!childSpends.has(p.txid)) return TOPOLOGY;
    if (p.inputs.some((i) => parentIds.has(i.txid))) return TOPOLOGY;
  }
  if (!child.inputs.every((i) => parentIds.has(i.txid) || chain.coin(i.txid, i.vout))) return 'package-not-child-with-unconfirmed-parents';
  return null;
}
