/**
 * Package RBF as Bitcoin Core 29 checks it (validation.cpp `PackageMempoolChecks`, policy/rbf.cpp
 * `PaysForRBF` and `ImprovesFeerateDiagram`, txmempool.cpp `CheckConflictTopology` and
 * `CalculateChunksForRBF`): a parent and its child that together conflict with mempool
 * transactions replace them when
 *   - the package is exactly one parent and one child, with no other unconfirmed ancestor;
 *   - it evicts at most 100 transactions;
 *   - it pays at least the fees of everything it evicts plus the incremental relay fee for the
 *     package's size;
 *   - its feerate is above the parent's own (the child pays for the replacement, not only for
 *     the relay);
 *   - every cluster it touches has at most two transactions, and the mempool's feerate diagram
 *     strictly improves (which puts the package's feerate above every conflict's chunk).
 * Refusals are package-wide (`package RBF failed: …`), in Core's order and words.
 */
import type { Mempool } from './mempool.js';
import { conflictClosure, inMempoolOrder, MAX_REPLACEMENT_CANDIDATES, paysForRbf, rateText, feeRatePerKvB } from './rbf.js';
import type { DecodedTx } from './tx-decode.js';

export interface PackageMember {
  tx: DecodedTx;
  fee: bigint;
  /** Its direct conflicts in the mempool. */
  conflicts: ReadonlySet<string>;
}

/** A fee over a size: a chunk of a feerate diagram. */
interface Chunk {
  fee: bigint;
  size: bigint;
}

const higherRate = (a: Chunk, b: Chunk): number => {
  const l = a.fee * b.size;
  const r = b.fee * a.size;
  return l > r ? -1 : l < r ? 1 : 0;
};

/**
 * Core's package RBF checks over `members` (parent first) whose direct conflicts are non-empty.
 * On success, every mempool transaction the package evicts, in mempool order.
 */
export function packageReplacementChecks(
  members: readonly PackageMember[], pool: Mempool, incrementalRate: bigint,
): { ok: true; evicted: string[] } | { ok: false; message: string } {
  const fail = (reason: string, debug?: string) => ({ ok: false as const, message: debug ? `package RBF failed: ${reason}, ${debug}` : `package RBF failed: ${reason}` });
  if (members.length !== 2) return fail('package must be 1-parent-1-child');
  const [parent, child] = members as [PackageMember, PackageMember];
  const ids = new Set(members.map((m) => m.tx.txid));
  for (const m of members) {
    const outside = m.tx.inputs.map((i) => i.txid).filter((t) => !ids.has(t));
    if (pool.ancestorsOf(outside).size > 0) return fail('new transaction cannot have mempool ancestors');
  }
  const direct = new Set<string>([...parent.conflicts, ...child.conflicts]);
  let count = 0;
  for (const c of direct) count += 1 + pool.descendants(c).length;
  if (count > MAX_REPLACEMENT_CANDIDATES) {
    return fail('too many potential replacements', `rejecting replacement ${child.tx.txid}; too many potential replacements (${count} > ${MAX_REPLACEMENT_CANDIDATES})\n`);
  }
  const all = conflictClosure(direct, pool);
  let conflictingFees = 0n;
  for (const t of all) conflictingFees += pool.get(t)!.fee;
  const fees = parent.fee + child.fee;
  const vsize = parent.tx.vsize + child.tx.vsize;
  const paid = paysForRbf(child.tx.txid, conflictingFees, fees, vsize, incrementalRate);
  if (paid) return fail('insufficient anti-DoS fees', paid);
  const packageRate = feeRatePerKvB(fees, vsize);
  const parentRate = feeRatePerKvB(parent.fee, parent.tx.vsize);
  if (packageRate <= parentRate) {
    return fail('package feerate is less than or equal to parent feerate', `package feerate ${rateText(packageRate)} <= parent feerate is ${rateText(parentRate)}`);
  }
  const topology = conflictTopologyError(all, pool);
  if (topology) return { ok: false, message: `package RBF failed: ${topology}` };
  if (!improvesDiagram(all, pool, { fee: fees, size: BigInt(vsize) })) return { ok: false, message: 'package RBF failed: insufficient feerate: does not improve feerate diagram' };
  return { ok: true, evicted: inMempoolOrder(all, pool) };
}

/** Core's `CheckConflictTopology`: every cluster the replacement touches is at most two transactions. */
function conflictTopologyError(removed: ReadonlySet<string>, pool: Mempool): string | null {
  for (const t of removed) {
    const e = pool.get(t)!;
    const ancestors = pool.ancestorsOf(e.parents).size;
    const descendants = pool.descendants(t).length;
    if (ancestors > 1) return `${t} has ${ancestors} ancestors, max 1 allowed`;
    if (descendants > 1) return `${t} has ${descendants} descendants, max 1 allowed`;
    if (ancestors > 0 && descendants > 0) return `${t} has both ancestor and descendant, exceeding cluster limit of 2`;
    if (descendants > 0) {
      const child = [...e.children][0]!;
      if (pool.ancestorsOf(pool.get(child)!.parents).size > 1) return `${t} is not the only parent of child ${child}`;
    } else if (ancestors > 0) {
      const parent = [...e.parents][0]!;
      if (pool.descendants(parent).length > 1) return `${t} is not the only child of parent ${parent}`;
    }
  }
  return null;
}

/**
 * Core's `CalculateChunksForRBF` and `CompareChunks` for clusters of at most two: the diagram
 * after the replacement must be nowhere below the one before and above it somewhere.
 */
function improvesDiagram(removed: ReadonlySet<string>, pool: Mempool, replacement: Chunk): boolean {
  const chunkOf = (t: string): Chunk => ({ fee: pool.get(t)!.fee, size: BigInt(pool.get(t)!.tx.vsize) });
  const old: Chunk[] = [];
  for (const t of removed) {
    if (pool.descendants(t).length > 0) continue;
    const e = pool.get(t)!;
    const own = chunkOf(t);
    if (e.parents.size === 0) {
      old.push(own);
      continue;
    }
    const parent = chunkOf([...e.parents][0]!);
    const both = { fee: own.fee + parent.fee, size: own.size + parent.size };
    // A child above its package's rate is mined with its parent (one chunk); else each alone.
    if (higherRate(own, both) < 0) old.push(both);
    else old.push(parent, own);
  }
  const fresh: Chunk[] = [replacement];
  for (const t of removed) {
    const p = [...pool.get(t)!.parents][0];
    if (p !== undefined && !removed.has(p)) fresh.push(chunkOf(p));
  }
  return compareDiagrams(fresh.sort(higherRate), old.sort(higherRate)) > 0;
}

/**
 * Compares two feerate diagrams (chunks by decreasing feerate, flat after their end): 1 when
 * `a` is nowhere below `b` and above it somewhere, -1 for the reverse, 0 when equal or crossing.
 */
function compareDiagrams(a: Chunk[], b: Chunk[]): number {
  const points = (cs: Chunk[]) => {
    const out = [{ size: 0n, fee: 0n }];
    for (const c of cs) out.push({ size: out.at(-1)!.size + c.size, fee: out.at(-1)!.fee + c.fee });
    return out;
  };
  const pa = points(a);
  const pb = points(b);
  /** The diagram's fee at `x` as a fraction (numerator, denominator). */
  const at = (p: Array<{ size: bigint; fee: bigint }>, x: bigint): [bigint, bigint] => {
    for (let i = 1; i < p.length; i++) {
      if (x <= p[i]!.size) {
        const s0 = p[i - 1]!.size;
        const f0 = p[i - 1]!.fee;
        const ds = p[i]!.size - s0;
        return [f0 * ds + (x - s0) * (p[i]!.fee - f0), ds];
      }
    }
    return [p.at(-1)!.fee, 1n];
  };
  let better = false;
  let worse = false;
  for (const x of [...pa, ...pb].map((p) => p.size)) {
    const [n1, d1] = at(pa, x);
    const [n2, d2] = at(pb, x);
    if (n1 * d2 > n2 * d1) better = true;
    if (n1 * d2 < n2 * d1) worse = true;
  }
  return better && !worse ? 1 : worse && !better ? -1 : 0;
}
