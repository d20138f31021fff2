/**
 * The journal's reactions for kind `checkout` (in the journal's or the indexer's transaction).
 * A checkout settlement's listings are the `ref_id`s of its fills.
 *
 * - released (the node refused it, or an input was spent elsewhere): listings still `reserved`
 *   go back to where they would be had no buyer claimed them: `active`; `pending` for a reused
 *   unit whose asset UTXO a reorg left unconfirmed (the seller's watcher checks it again when it
 *   confirms); `invalid` for one whose seller half is gone (a reorged sale) or whose attach a
 *   reorg reopened (the draft reads withdrawn: list again). Its fills are `dropped`.
 * - confirmed: fills `confirmed` (when the market saw the block, and its height); listings
 *   `sold`, the seller half wiped. A settlement released earlier and mined anyway is treated the
 *   same way: the chain wins.
 * - unconfirmed (a reorg disconnected its block): fills back to `pending`, listings `reserved`
 *   (the settlement is back in flight; recovery relays or releases it).
 */
import type { Tx } from '../../store/db.js';
import type { SettlementHandlers, SettlementRow } from '../../settlement/journal.js';
import { endListing, type ListingRow } from '../listings/store.js';

async function listingIds(tx: Tx, s: SettlementRow): Promise<string[]> {
  const rows = await tx.selectFrom('fills').select('ref_id').where('settlement_id', '=', s.id).where('kind', '=', 'listing').execute();
  return rows.map((r) => r.ref_id);
}

/** Where a released listing goes: the state it would have without the claim. */
function unclaimedState(l: ListingRow & { mode: string | null; reopened: number | null }): 'active' | 'pending' | 'invalid' {
  if (!l.signed_psbt || l.reopened) return 'invalid';
  return l.mode === 'reuse' && l.utxo_height === null ? 'pending' : 'active';
}

export function checkoutHandlers(now: () => number): SettlementHandlers {
  return {
    onReleased: async (tx, s) => {
      const at = now();
      const ids = await listingIds(tx, s);
      if (ids.length) {
        const reserved = await tx
          .selectFrom('listings')
          .leftJoin('listing_drafts', 'listing_drafts.id', 'listings.draft_id')
          .selectAll('listings')
          .select(['listing_drafts.mode', 'listing_drafts.reopened'])
          .where('listings.id', 'in', ids)
          .where('listings.state', '=', 'reserved')
          .execute();
        for (const l of reserved) {
          const back = unclaimedState(l);
          if (back === 'invalid') await endListing(tx, l, 'invalid', at, ['reserved']);
          else await tx.updateTable('listings').set({ state: back, updated_at: at }).where('id', '=', l.id).where('state', '=', 'reserved').execute();
        }
      }
      await tx.updateTable('fills').set({ state: 'dropped', updated_at: at }).where('settlement_id', '=', s.id).where('state', '=', 'pending').execute();
    },
    onConfirmed: async (tx, s, block) => {
      const at = Math.floor(block.seenAt / 1000);
      await tx
        .updateTable('fills')
        .set({ state: 'confirmed', confirmed_at: at, block_index: block.height, updated_at: at })
        .where('settlement_id', '=', s.id)
        .execute();
      const ids = await listingIds(tx, s);
      if (!ids.length) return;
      await tx
        .updateTable('listings')
        .set({ state: 'sold', end_reason: null, signed_psbt: null, ended_at: at, updated_at: at })
        .where('id', 'in', ids)
        .where('state', '!=', 'sold')
        .execute();
    },
    onUnconfirmed: async (tx, s) => {
      const at = now();
      await tx
        .updateTable('fills')
        .set({ state: 'pending', confirmed_at: null, block_index: null, updated_at: at })
        .where('settlement_id', '=', s.id)
        .execute();
      const ids = await listingIds(tx, s);
      if (!ids.length) return;
      await tx.updateTable('listings').set({ state: 'reserved', ended_at: null, updated_at: at }).where('id', 'in', ids).where('state', '=', 'sold').execute();
    },
  };
}
