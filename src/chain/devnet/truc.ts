/**
 * TRUC (BIP-431, version 3) policy as Bitcoin Core 28's `SingleTRUCChecks`: a v3 transaction
 * may not spend an unconfirmed non-v3 one (nor the reverse), is at most 10,000 vB, has at most
 * one unconfirmed ancestor, and when it has one it is that parent's only child and at most
 * 1,000 vB. Messages are Core's (the reject reason is `TRUC-violation`). Core 28's sibling
 * eviction is not implemented: a second child is refused.
 */
import type { Mempool } from './mempool.js';
import type { DecodedTx } from './tx-decode.js';

export const TRUC_VERSION = 3;
export const TRUC_MAX_VSIZE = 10_000;
export const TRUC_CHILD_MAX_VSIZE = 1_000;
const TRUC_ANCESTOR_LIMIT = 2;
const TRUC_DESCENDANT_LIMIT = 2;

/** The debug message of the first TRUC rule `tx` breaks, or null. `ancestors` are in-mempool. */
export function trucViolation(tx: DecodedTx, ancestors: ReadonlySet<string>, pool: Mempool): string | null {
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
    if (pool.descendants(parentId).length + 1 + 1 > TRUC_DESCENDANT_LIMIT) {
      return `tx ${parent.tx.txid} (wtxid=${parent.tx.wtxid}) would exceed descendant count limit`;
    }
  }
  return null;
}
