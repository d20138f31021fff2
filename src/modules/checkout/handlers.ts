/**
 * The journal's reactions for kind `checkout` (in the journal's or the indexer's transaction).
 * A checkout settlement's listings are the `ref_id`s of its fills.
 *
 * - released after its bytes may have reached the network (it was relayed, or a broadcast's
 *   outcome was unknown): the sellers' halves are public, so listings still `reserved` become
 *   `exposed` (off the book until the seller moves the unit; lifecycle.exposeListing).
 * - released otherwise (the node refused it, or an input was spent elsewhere): listings still `reserved`
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
import type { SettlementHandlers, SettlementRow } from '../../settlement/journal.js';
import type { ListingRow } from '../listings/index.js';
import type { ExposureReason } from '../listings/index.js';
import { endListing, exposeListing, releaseListing, sellListings, unsellListings } from '../listings/index.js';
import { confirmFills, dropFills, fillRefs, unconfirmFills } from '../../trade/fills.js';

/** Where a released listing goes: the state it would have without the claim. */
function unclaimedState(l: ListingRow & { mode: string | null; reopened: number | null }): 'active' | 'pending' | 'invalid' {
  if (!l.signed_psbt || l.reopened) return 'invalid';
  return l.mode === 'reuse' && l.utxo_height === null ? 'pending' : 'active';
}

/**
 * Whether a released checkout's bytes may be in other hands: it was relayed (then replaced or
 * evicted), or an attempt's outcome was unknown (last_error) before the node refused it.
 * A refusal on the first and only attempt never left the node: nothing is exposed.
 */
function exposureOf(s: SettlementRow): ExposureReason | null {
  if (s.relayed_at !== null) return 'checkout_replaced';
  if (s.last_error === null) return null;
  return s.state === 'rejected' ? 'checkout_rejected' : 'checkout_conflicted';
}

export function checkoutHandlers(now: () => number): SettlementHandlers {
  return {
    onReleased: async (tx, s) => {
      const at = now();
      const ids = await fillRefs(tx, s.id, 'listing');
      if (ids.length) {
        const reserved = await tx
          .selectFrom('listings')
          .leftJoin('listing_drafts', 'listing_drafts.id', 'listings.draft_id')
          .selectAll('listings')
          .select(['listing_drafts.mode', 'listing_drafts.reopened'])
          .where('listings.id', 'in', ids)
          .where('listings.state', '=', 'reserved')
          .execute();
        const exposure = exposureOf(s);
        for (const l of reserved) {
          // A listing that is dead anyway (half gone, attach reopened) ends as before.
          const back = unclaimedState(l);
          if (back === 'invalid') await endListing(tx, l, 'invalid', at, ['reserved']);
          // A co-signed half is worthless without the market's signature, which covered only this
          // checkout: nothing but that very sale (the seller's own terms) could ever be completed.
          else if (exposure && l.protocol_subtype !== 'cosigned') await exposeListing(tx, l, exposure, at, s.txid);
          else await releaseListing(tx, l.id, back, at);
        }
      }
      await dropFills(tx, s.id, at);
    },
    onConfirmed: async (tx, s, block) => {
      const at = Math.floor(block.seenAt / 1000);
      await confirmFills(tx, s.id, block.height, at);
      await sellListings(tx, await fillRefs(tx, s.id, 'listing'), at);
    },
    onUnconfirmed: async (tx, s) => {
      const at = now();
      await unconfirmFills(tx, s.id, at);
      await unsellListings(tx, await fillRefs(tx, s.id, 'listing'), at);
    },
  };
}
