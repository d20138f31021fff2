/**
 * Mempool acceptance as Bitcoin Core 29 does it (validation.cpp `PreChecks`,
 * `PolicyScriptChecks`, `ConsensusScriptChecks`), in Core's order so the first failure gives
 * Core's reason: context-free consensus checks, standardness, finality, conflicts, missing
 * inputs, amounts, input standardness, fee floor, ancestor limits, TRUC (with sibling
 * eviction), replacement (rbf.ts), then signatures.
 *
 * Deliberate differences, documented in docs/devnet.md: no sigop limits, no full mempool.
 */
import { prepareTransaction } from '../../bitcoin/input-signature.js';
import type { Prevout } from '../../bitcoin/transaction.js';
import type { Mempool } from './mempool.js';
import {
  checkTransactionReason, MAX_MONEY, nonstandardInputsReason, nonstandardWitnessReason, standardTxReason,
} from './policy.js';
import { replacementChecks } from './rbf.js';
import { trucViolation } from './truc.js';
import type { DecodedTx } from './tx-decode.js';
import type { InputVerifier } from './verifier.js';

export interface Coin {
  value: bigint;
  script: Uint8Array;
  /** Confirming height; the next block's height for a mempool output. */
  height: number;
  coinbase: boolean;
}

export interface ChainView {
  /** Height of the tip. */
  readonly height: number;
  /** Median of the last 11 block times up to `height` (BIP-113). */
  medianTimePast(height: number): number;
  /** A confirmed unspent output. */
  coin(txid: string, vout: number): Coin | undefined;
}

/** A refusal as Core reports it: `reason` (the short code), `debug` details, the RPC error code. */
export interface Reject {
  reason: string;
  debug?: string;
  rpcCode: number;
  /**
   * Core's TX_RECONSIDERABLE or TX_MISSING_INPUTS: a fee-rate or replacement-fee failure, or a
   * parent not yet known, that validating with the rest of a package may change.
   */
  retry?: boolean;
  /** Failed in the script checks (Core runs them after every member's PreChecks). */
  script?: boolean;
}

export const RPC_VERIFY_ERROR = -25;
export const RPC_VERIFY_REJECTED = -26;
export const RPC_VERIFY_ALREADY_IN_CHAIN = -27;
export const RPC_DESERIALIZATION_ERROR = -22;

/** Core's `TxValidationState::ToString`: `reason, debug` (what sendrawtransaction prints). */
export const rejectText = (r: Reject): string => (r.debug ? `${r.reason}, ${r.debug}` : r.reason);

export interface AcceptOptions {
  /** Unix seconds. */
  now: number;
  /** Re-adding transactions from disconnected blocks: skip fee and chain limits (Core's bypass_limits). */
  bypassLimits?: boolean;
  /** Package validation: the fee floor is checked on the package, except for non-TRUC parents. */
  packageFeerates?: boolean;
  /** Minimum relay fee rate in sat/kvB (Core default 1000). */
  minRelayFeeRate: bigint;
  /**
   * Conflicts may be replaced (Core's `m_allow_replacement`): single transactions and package
   * members. Off for multi-transaction testmempoolaccept and re-accepting after a reorg.
   */
  allowReplacement?: boolean;
  /** TRUC sibling eviction (Core: single-transaction submission only). */
  allowSiblingEviction?: boolean;
  /**
   * Package evaluation (Core's AcceptMultipleTransactions): conflicts are collected, not judged
   * one transaction at a time; the caller runs package RBF over the whole package.
   */
  deferReplacement?: boolean;
  /** `-incrementalrelayfee` in sat/kvB (Core 29.1+: 100). */
  incrementalRelayFeeRate: bigint;
}

/** Core's COINBASE_MATURITY: a coinbase output is spendable in the block 100 above its own. */
export const COINBASE_MATURITY = 100;

export type Verdict =
  | {
    ok: true; tx: DecodedTx; fee: bigint; parents: Set<string>; prevouts: Prevout[];
    /** Mempool transactions this one evicts (conflicts, their descendants, an evicted sibling), in mempool order. */
    replaced: string[];
    /** Direct conflicts left for the package's replacement checks (`deferReplacement`). */
    conflicts: Set<string>;
  }
  | { ok: false; reject: Reject };

export const ANCESTOR_LIMIT = 25;
export const DESCENDANT_LIMIT = 25;
export const ANCESTOR_SIZE_LIMIT_VB = 101_000;
const SEQUENCE_FINAL = 0xffffffff;
const LOCKTIME_THRESHOLD = 500_000_000;

const fail = (reason: string, debug?: string, rpcCode = RPC_VERIFY_REJECTED, extra: Pick<Reject, 'retry' | 'script'> = {}): Verdict => ({
  ok: false,
  reject: { reason, ...(debug === undefined ? {} : { debug }), rpcCode, ...extra },
});

/** `CFeeRate::GetFee`: fee for `vsize` at `rate` sat/kvB, rounded up. */
export const feeFor = (vsize: number, rate: bigint): bigint => (rate * BigInt(vsize) + 999n) / 1000n;

function isFinal(tx: DecodedTx, height: number, mtp: number): boolean {
  if (tx.lockTime === 0) return true;
  if (tx.lockTime < (tx.lockTime < LOCKTIME_THRESHOLD ? height : mtp)) return true;
  return tx.inputs.every((i) => i.sequence === SEQUENCE_FINAL);
}

/** BIP-68 relative locks, evaluated for inclusion in the next block. */
function sequenceLocksOk(tx: DecodedTx, coins: Coin[], chain: ChainView): boolean {
  if (tx.version < 2) return true;
  const next = chain.height + 1;
  let minHeight = -1;
  let minTime = -1;
  tx.inputs.forEach((inp, k) => {
    if (inp.sequence & 0x80000000) return;
    const coinHeight = coins[k]!.height;
    if (inp.sequence & 0x00400000) {
      const coinTime = chain.medianTimePast(Math.max(coinHeight - 1, 0));
      minTime = Math.max(minTime, coinTime + ((inp.sequence & 0xffff) << 9) - 1);
    } else minHeight = Math.max(minHeight, coinHeight + (inp.sequence & 0xffff) - 1);
  });
  return minHeight < next && minTime < chain.medianTimePast(chain.height);
}

/**
 * Would `tx` enter `pool` on top of `chain`? Pure with respect to both: the caller adds the
 * transaction when the verdict is ok.
 */
export function checkMempoolAccept(tx: DecodedTx, chain: ChainView, pool: Mempool, verify: InputVerifier, opts: AcceptOptions): Verdict {
  const consensus = checkTransactionReason(tx);
  if (consensus) return fail(consensus);
  if (tx.isCoinbase) return fail('coinbase');
  const nonstandard = standardTxReason(tx);
  if (nonstandard) return fail(nonstandard);
  if (!isFinal(tx, chain.height + 1, chain.medianTimePast(chain.height))) return fail('non-final');
  const existing = pool.get(tx.txid);
  if (existing) return fail(existing.tx.wtxid === tx.wtxid ? 'txn-already-in-mempool' : 'txn-same-nonwitness-data-in-mempool');
  const conflicts = new Set<string>();
  for (const i of tx.inputs) {
    const spender = pool.spender(i.txid, i.vout);
    if (spender && !opts.allowReplacement) return fail('bip125-replacement-disallowed');
    if (spender) conflicts.add(spender);
  }
  if (tx.outputs.some((_, n) => chain.coin(tx.txid, n))) return fail('txn-already-known');

  const coins: Coin[] = [];
  const parents = new Set<string>();
  for (const i of tx.inputs) {
    const confirmed = chain.coin(i.txid, i.vout);
    const unconfirmed = confirmed ? undefined : pool.output(i.txid, i.vout);
    if (!confirmed && !unconfirmed) return fail('bad-txns-inputs-missingorspent', undefined, RPC_VERIFY_ERROR, { retry: true });
    if (unconfirmed) parents.add(i.txid);
    coins.push(confirmed ?? { value: unconfirmed!.value, script: unconfirmed!.script, height: chain.height + 1, coinbase: false });
  }
  if (!sequenceLocksOk(tx, coins, chain)) return fail('non-BIP68-final');

  // Core's CheckTxInputs: a coinbase output matures 100 blocks after its own (spent in the next block).
  for (const c of coins) {
    if (c.coinbase && chain.height + 1 - c.height < COINBASE_MATURITY) {
      return fail('bad-txns-premature-spend-of-coinbase', `tried to spend coinbase at depth ${chain.height + 1 - c.height}`);
    }
  }
  let valueIn = 0n;
  for (const c of coins) {
    valueIn += c.value;
    if (c.value < 0n || c.value > MAX_MONEY || valueIn > MAX_MONEY) return fail('bad-txns-inputvalues-outofrange');
  }
  const valueOut = tx.outputs.reduce((s, o) => s + o.value, 0n);
  if (valueIn < valueOut) return fail('bad-txns-in-belowout', `value in (${btc(valueIn)}) < value out (${btc(valueOut)})`);
  const fee = valueIn - valueOut;
  const scripts = coins.map((c) => c.script);
  const badInputs = nonstandardInputsReason(scripts);
  if (badInputs) return fail(badInputs);
  const badWitness = nonstandardWitnessReason(tx, scripts);
  if (badWitness) return fail(badWitness);

  let siblingEviction = false;
  if (!opts.bypassLimits) {
    const floor = feeFor(tx.vsize, opts.minRelayFeeRate);
    // Core: no non-TRUC transaction below the relay floor, package or not (TX_MEMPOOL_POLICY);
    // outside a package a TRUC one fails the same check as reconsiderable (CheckFeeRate), so a
    // child may pay for it; inside a package the package pays (checked by the caller).
    if (tx.version !== 3 && fee < floor) return fail('min relay fee not met', `${fee} < ${floor}`);
    if (!opts.packageFeerates && fee < floor) return fail('min relay fee not met', `${fee} < ${floor}`, RPC_VERIFY_REJECTED, { retry: true });
    const ancestors = pool.ancestorsOf(parents);
    if (ancestors.size + 1 > ANCESTOR_LIMIT) return fail('too-long-mempool-chain', `too many unconfirmed ancestors [limit: ${ANCESTOR_LIMIT}]`);
    let ancestorSize = tx.vsize;
    for (const a of ancestors) ancestorSize += pool.get(a)!.tx.vsize;
    if (ancestorSize > ANCESTOR_SIZE_LIMIT_VB) return fail('too-long-mempool-chain', `exceeds ancestor size limit [limit: ${ANCESTOR_SIZE_LIMIT_VB}]`);
    for (const a of ancestors) {
      if (pool.descendants(a).length + 2 > DESCENDANT_LIMIT) {
        return fail('too-long-mempool-chain', `too many descendants for tx ${a} [limit: ${DESCENDANT_LIMIT}]`);
      }
    }
    // Core's order: TRUC (with sibling eviction) first, then the replacement-spends-what-it-replaces check.
    const truc = trucViolation(tx, ancestors, pool, conflicts);
    if (truc && truc.sibling && opts.allowSiblingEviction) {
      conflicts.add(truc.sibling);
      siblingEviction = true;
    } else if (truc) return fail('TRUC-violation', truc.debug);
    for (const a of ancestors) if (conflicts.has(a)) return fail('bad-txns-spends-conflicting-tx', `${tx.txid} spends conflicting transaction ${a}`);
  }
  let replaced: string[] = [];
  if (conflicts.size > 0 && !opts.deferReplacement) {
    const r = replacementChecks(tx, fee, conflicts, pool, siblingEviction, opts.incrementalRelayFeeRate);
    if (!r.ok) return fail(r.refusal.reason, r.refusal.debug, RPC_VERIFY_REJECTED, r.refusal.retry ? { retry: true } : {});
    replaced = r.evicted;
  }

  const prevouts: Prevout[] = coins.map((c) => ({ script: c.script, amount: c.value }));
  const digests = prepareTransaction(tx.tx, prevouts);
  for (let k = 0; k < tx.inputs.length; k++) {
    const standard = verify(digests, k, 'standard');
    if (standard.ok) continue;
    // Core 29.2's texts (29.3 and 30 say `mempool-script-verify-flag-failed (…)` for both; docs/devnet.md).
    const input = tx.inputs[k]!;
    const where = `input ${k} of ${tx.txid} (wtxid ${tx.wtxid}), spending ${input.txid}:${input.vout}`;
    const consensusOnly = verify(digests, k, 'consensus');
    if (consensusOnly.ok) return fail(`non-mandatory-script-verify-flag (${standard.error})`, where, RPC_VERIFY_REJECTED, { script: true });
    return fail(`mandatory-script-verify-flag-failed (${consensusOnly.error})`, where, RPC_VERIFY_REJECTED, { script: true });
  }
  return { ok: true, tx, fee, parents, prevouts, replaced, conflicts };
}

const btc = (sats: bigint): string => `${sats / 100_000_000n}.${(sats % 100_000_000n).toString().padStart(8, '0')}`;
