/**
 * The units of a cart whose confirmation is not final yet are checked on the node before the
 * claim. A reorg can put a fresh attach back in the mempool, and the node may then mine it again
 * behind the transaction that freed the balance it attaches (the two do not depend on each other,
 * and a block template is ordered by fee, not by Counterparty's needs). Counterparty then finds
 * nothing to attach, and the output the buyer pays for holds nothing. The indexer ends such a
 * listing when it rolls the reorg back (listings/watcher.ts), but a completion between the reorg
 * and that rollback would still sell it: simulated day 9101 (docs/simulation.md) did.
 *
 * Only units confirmed in the last FINALITY_DEPTH blocks of the indexed tip (or whose
 * confirmation the market has not recorded) are asked about. When the node's best block is the
 * indexer's tip, the market's rows already reflect every reorg: one call answers for the cart.
 * Otherwise each such unit is asked about, one getTxOut each (the chain, not the mempool), in
 * parallel: a unit that is not unspent and confirmed in the node's best chain now is 409
 * checkout_changed. Once a unit's
 * confirmation is final, it costs nothing.
 */
import type { Context } from '../../context.js';
import type { Db, Tx } from '../../store/db.js';
import { ApiError } from '../../http/errors.js';
import { FINALITY_DEPTH } from '../transactions/index.js';
import type { ListingRow } from '../listings/index.js';

/**
 * The height that confirmed each listing's unit as the market recorded it: a reused UTXO's is on
 * the row (`utxo_height`); an attach's is its draft's, read only for the rows without one.
 */
async function confirmedHeights(db: Db | Tx, listings: ListingRow[]): Promise<Map<string, number | null>> {
  const heights = new Map(listings.map((l) => [l.id, l.utxo_height]));
  const drafts = listings.filter((l) => l.utxo_height === null);
  if (!drafts.length) return heights;
  const rows = await db.selectFrom('listing_drafts').select(['id', 'confirmed_height']).where('mode', '=', 'attach').where('id', 'in', drafts.map((l) => l.draft_id)).execute();
  const byDraft = new Map(rows.map((r) => [r.id, r.confirmed_height]));
  for (const l of drafts) heights.set(l.id, byDraft.get(l.draft_id) ?? null);
  return heights;
}

/** Refuses the cart when a unit confirmed within the last FINALITY_DEPTH blocks is no longer confirmed and unspent on the node. */
export async function checkFreshUnits(ctx: Context, db: Db | Tx, listings: ListingRow[]): Promise<void> {
  const cursor = await ctx.indexer.cursor();
  const heights = await confirmedHeights(db, listings);
  const fresh = listings.filter((l) => {
    const h = heights.get(l.id) ?? null;
    return h === null || cursor === undefined || cursor.height - h + 1 < FINALITY_DEPTH;
  });
  if (!fresh.length) return;
  // No block the indexer has not read: its rows (a rolled-back attach ends its listing) are the chain's.
  if (cursor && (await ctx.chain.bitcoin.getBestBlockHash()) === cursor.hash && fresh.every((l) => heights.get(l.id) != null)) return;
  // The chain alone (mempool spends left out): a rival settlement spending the unit in the
  // mempool is the claim's to refuse, as for any unit; this asks only whether it is still confirmed.
  const outs = await Promise.all(fresh.map((l) => ctx.chain.bitcoin.getTxOut(l.utxo_txid, l.utxo_vout, false)));
  const gone = fresh.find((_, i) => !(outs[i] && outs[i]!.confirmations >= 1));
  if (gone) {
    throw new ApiError('checkout_changed', `listing ${gone.id}: its unit is no longer confirmed and unspent in the node's chain (a reorg or a spend the market has not indexed yet); request a new quote later`, { listing_id: gone.id });
  }
}
