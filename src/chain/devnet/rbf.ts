/**
 * Replacement (full-RBF) as Bitcoin Core 28 checks it (policy/rbf.cpp, validation.cpp
 * `ReplacementChecks`; doc/policy/mempool-replacements.md). Every unconfirmed transaction is
 * replaceable (`-mempoolfullrbf` defaults to on since Core 28). A replacement must:
 *   - pay a higher fee rate than each transaction it directly conflicts with (rule 6);
 *   - evict at most 100 transactions, counting each direct conflict with its descendants (rule 5);
 *   - spend no unconfirmed output that the transactions it evicts did not already spend (rule 2);
 *   - pay at least the absolute fees of everything it evicts (rule 3), plus the incremental
 *     relay fee (`-incrementalrelayfee`) for its own size (rule 4).
 * Package RBF (a child paying for its parent's replacement) is `packageReplacementChecks` in package-rbf.ts.
 * Messages are Core's (`reason, debug`), so src/chain/errors.ts reads them as a lost conflict.
 */
import type { Mempool } from './mempool.js';
import type { DecodedTx } from './tx-decode.js';

export const MAX_REPLACEMENT_CANDIDATES = 100;
export interface ReplacementRefusal {
  reason: string;
  debug: string;
  /** A fee failure (rules 3, 4, 6): Core's TX_RECONSIDERABLE, which a package may overcome. */
  retry?: boolean;
}

/** `CFeeRate(fee, vsize)`: sat/kvB, truncated as Core does. */
export const feeRatePerKvB = (fee: bigint, vsize: number): bigint => (fee * 1000n) / BigInt(vsize);

/** `CFeeRate::ToString`: `0.00001000 BTC/kvB`. */
export const rateText = (perKvB: bigint): string => `${perKvB / 100_000_000n}.${(perKvB % 100_000_000n).toString().padStart(8, '0')} BTC/kvB`;

/** `FormatMoney`: BTC with trailing zeros trimmed down to two decimals (`0.00001`, `0.00`). */
export function formatMoney(sats: bigint): string {
  const neg = sats < 0n;
  const abs = neg ? -sats : sats;
  let frac = (abs % 100_000_000n).toString().padStart(8, '0');
  while (frac.length > 2 && frac.endsWith('0')) frac = frac.slice(0, -1);
  return `${neg ? '-' : ''}${abs / 100_000_000n}.${frac}`;
}

/**
 * Core's replacement checks for `tx` (fee `fee`) against its direct conflicts `direct`. On
 * success, every transaction it would evict (direct conflicts and their descendants), in
 * mempool order. `siblingEviction` adds Core's suffix to the reason.
 */
export function replacementChecks(
  tx: DecodedTx, fee: bigint, direct: ReadonlySet<string>, pool: Mempool, siblingEviction: boolean, incrementalRate: bigint,
): { ok: true; evicted: string[] } | { ok: false; refusal: ReplacementRefusal } {
  const suffix = siblingEviction ? ' (including sibling eviction)' : '';
  const refuse = (reason: string, debug: string, retry = false) => ({ ok: false as const, refusal: { reason: `${reason}${suffix}`, debug, ...(retry ? { retry } : {}) } });
  const newRate = feeRatePerKvB(fee, tx.vsize);
  for (const c of direct) {
    const e = pool.get(c)!;
    const oldRate = feeRatePerKvB(e.fee, e.tx.vsize);
    if (newRate <= oldRate) {
      return refuse('insufficient fee', `rejecting replacement ${tx.txid}; new feerate ${rateText(newRate)} <= old feerate ${rateText(oldRate)}`, true);
    }
  }
  // Core sums each conflict's count with descendants: it may count a shared descendant twice,
  // on purpose (a conservative bound before the real set is computed).
  let count = 0;
  for (const c of direct) {
    count += 1 + pool.descendants(c).length;
    if (count > MAX_REPLACEMENT_CANDIDATES) {
      return refuse('too many potential replacements', `rejecting replacement ${tx.txid}; too many potential replacements (${count} > ${MAX_REPLACEMENT_CANDIDATES})\n`);
    }
  }
  const all = conflictClosure(direct, pool);
  // Rule 2 over everything evicted (Core's HasNoNewUnconfirmed gets all conflicts).
  const parentsOfConflicts = new Set<string>();
  for (const c of all) for (const i of pool.get(c)!.tx.inputs) parentsOfConflicts.add(i.txid);
  for (let j = 0; j < tx.inputs.length; j++) {
    const prev = tx.inputs[j]!.txid;
    if (!parentsOfConflicts.has(prev) && pool.get(prev)) {
      return refuse('replacement-adds-unconfirmed', `replacement ${tx.txid} adds unconfirmed input, idx ${j}`);
    }
  }
  let originalFees = 0n;
  for (const t of all) originalFees += pool.get(t)!.fee;
  const paid = paysForRbf(tx.txid, originalFees, fee, tx.vsize, incrementalRate);
  if (paid) return refuse('insufficient fee', paid, true);
  return { ok: true, evicted: inMempoolOrder(all, pool) };
}

/** The direct conflicts with all their descendants. */
export function conflictClosure(direct: Iterable<string>, pool: Mempool): Set<string> {
  const all = new Set<string>();
  for (const c of direct) {
    all.add(c);
    for (const d of pool.descendants(c)) all.add(d);
  }
  return all;
}

export const inMempoolOrder = (txids: Iterable<string>, pool: Mempool): string[] => [...txids].sort((a, b) => pool.get(a)!.seq - pool.get(b)!.seq);

/** Core's `PaysForRBF` (rules 3 and 4): the debug text of the refusal, or null. */
export function paysForRbf(txid: string, originalFees: bigint, fee: bigint, vsize: number, incrementalRate: bigint): string | null {
  if (fee < originalFees) return `rejecting replacement ${txid}, less fees than conflicting txs; ${formatMoney(fee)} < ${formatMoney(originalFees)}`;
  const relay = (incrementalRate * BigInt(vsize) + 999n) / 1000n;
  if (fee - originalFees < relay) return `rejecting replacement ${txid}, not enough additional fees to relay; ${formatMoney(fee - originalFees)} < ${formatMoney(relay)}`;
  return null;
}
