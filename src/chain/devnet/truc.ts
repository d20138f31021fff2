/**
 * TRUC (BIP-431, version 3) policy as Bitcoin Core 28's `SingleTRUCChecks`: a v3 transaction
 * may not spend an unconfirmed non-v3 one (nor the reverse), is at most 10,000 vB, has at most
 * one unconfirmed ancestor, and when it has one it is that parent's only child and at most
 * 1,000 vB. Messages are Core's (the reject reason is `TRUC-violation`). A second child may
 * evict the first (Core 28's sibling eviction) when the parent has exactly that one child and
 * the child no other ancestor: the verdict names the sibling and the caller applies the
 * replacement rules to it.
 */
import type { Mempool } from './mempool.js';
import type { DecodedTx } from './tx-decode.js';

export const TRUC_VERSION = 3;
export const TRUC_MAX_VSIZE = 10_000;
export const TRUC_CHILD_MAX_VSIZE = 1_000;
const TRUC_ANCESTOR_LIMIT = 2;
const TRUC_DESCENDANT_LIMIT = 2;

export interface TrucViolation {
  debug: string;
  /** The parent's only child, which Core may evict in favour of `tx` (sibling eviction). */
  sibling?: string;
}

/**
 * The first TRUC rule `tx` breaks, or null. `ancestors` are in-mempool; a child among
 * `conflicts` (about to be replaced) does not count against its parent's one-child limit.
 */
export function trucViolation(tx: DecodedTx, ancestors: ReadonlySet<string>, pool: Mempool, conflicts: ReadonlySet<string> = new Set()): TrucViolation | null {
  const v = trucRuleBroken(tx, ancestors, pool, conflicts);
  return typeof v === 'string' ? { debug: v } : v;
}

function trucRuleBroken(tx: DecodedTx, ancestors: ReadonlySet<string>, pool: Mempool, conflicts: ReadonlySet<string>): string | TrucViolation | null {
  const me = `tx ${tx.txid} (wtxid=${tx.wtxid})`;
  for (const a of ancestors) {
    const p = pool.get(a)!.tx;
    const them = `tx ${p.txid} (wtxid=${p.wtxid})`;
    if (tx.version !== TRUC_VERSION && p.version === TRUC_VERSION) return `non-version=3 ${me} cannot spend from version=3 ${them}`;
    if (tx.version === TRUC_VERSION && p.version !== TRUC_VERSION) return `version=3 ${me} cannot spend from non-version=3 ${them}`;
  }
  if (tx.version !== TRUC_VERSION) return null;
  if (tx.vsize > TRUC_MAX_VSIZE) return `version=3 ${me} is too big: ${tx.vsize} > ${TRUC_MAX_VSIZE} virtual bytes`;
  if (ancestors.size + 1 > TRUC_ANCESTOR_LIMIT) return `${me} would have too many ancestors`;
  if (ancestors.size > 0) {
    if (tx.vsize > TRUC_CHILD_MAX_VSIZE) return `version=3 child ${me} is too big: ${tx.vsize} > ${TRUC_CHILD_MAX_VSIZE} virtual bytes`;
    const parentId = [...ancestors][0]!;
    const parent = pool.get(parentId)!;
    const children = [...parent.children];
    const childReplaced = children.some((c) => conflicts.has(c));
    if (pool.descendants(parentId).length + 1 + 1 > TRUC_DESCENDANT_LIMIT && !childReplaced) {
      const debug = `tx ${parent.tx.txid} (wtxid=${parent.tx.wtxid}) would exceed descendant count limit`;
      const only = children.length === 1 && pool.descendants(parentId).length === 1 ? children[0]! : undefined;
      const siblingAlone = only !== undefined && pool.ancestorsOf(pool.get(only)!.parents).size === 1;
      return siblingAlone ? { debug, sibling: only } : debug;
    }
  }
  return null;
}
