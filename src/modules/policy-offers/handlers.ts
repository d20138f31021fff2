/**
 * The journal's reactions for kind `policy_accept` (in the journal's or the indexer's transaction).
 *
 * - released (the node refused the package, or an input was spent elsewhere — the bidder racing
 *   its own funding, or the seller its unit): the listing the accept reserved is active again, the
 *   fill dropped, and the funding set ends invalid — the signer co-signed that one child and will
 *   never sign another for the parent, so the bidder places again (its money never moved).
 * - confirmed: the fill confirmed, the listing sold, and the parent's out 1 (the anchor's value
 *   back to the market wallet) joins the pool as a free anchor.
 * - unconfirmed (a reorg): the fill pending again, the listing reserved again.
 */
import type { SettlementHandlers } from '../../settlement/journal.js';
import { releaseListing, sellListings, unsellListings } from '../listings/index.js';
import { eventId } from '../../trade/event-rows.js';
import { confirmFills, dropFills, unconfirmFills } from '../../trade/fills.js';
import { anchorFromParent } from './anchors.js';
import { failFilledSet } from './lifecycle.js';
import { recordEvent } from '../../trade/owner-events.js';

export function policyAcceptHandlers(now: () => number): SettlementHandlers {
  return {
    onReleased: async (tx, s, outcome) => {
      const at = now();
      const a = await tx.selectFrom('policy_accepts').selectAll().where('id', '=', s.ref_id).executeTakeFirst();
      if (a) {
        if (a.listing_id) await releaseListing(tx, a.listing_id, 'active', at);
        const set = await tx.selectFrom('policy_funding_sets').selectAll().where('id', '=', a.funding_set_id).executeTakeFirst();
        if (set) await failFilledSet(tx, set, outcome === 'conflicted' ? 'package_conflicted' : 'package_rejected', at);
        // The seller signed and someone's spend won (typically the bidder moving its funding): say so in the seller's feed.
        if (outcome === 'conflicted') {
          await recordEvent(tx, {
            event_id: eventId('collection_offer_accept_conflicted', s.id),
            address: a.seller,
            role: 'seller',
            kind: 'collection_offer_accept_conflicted',
            at,
            listing_id: a.listing_id,
            asset: a.asset,
            price_sats: a.price_sats,
            txid: a.expected_txid,
            status: 'conflicted',
            data: JSON.stringify({ accept_id: a.id, offer_id: a.offer_id, funding_set_id: a.funding_set_id, parent_txid: set?.parent_txid ?? null, mempool_reason: s.mempool_reason }),
          });
        }
      }
      await dropFills(tx, s.id, at);
    },
    onConfirmed: async (tx, s, block) => {
      const at = Math.floor(block.seenAt / 1000);
      await confirmFills(tx, s.id, block.height, at);
      const a = await tx.selectFrom('policy_accepts').selectAll().where('id', '=', s.ref_id).executeTakeFirst();
      if (!a) return;
      if (a.listing_id) await sellListings(tx, [a.listing_id], at);
      const set = await tx.selectFrom('policy_funding_sets').select(['parent_txid', 'anchor_value_sats']).where('id', '=', a.funding_set_id).executeTakeFirst();
      if (set) await anchorFromParent(tx, set.parent_txid, Number(set.anchor_value_sats), at);
    },
    onUnconfirmed: async (tx, s) => {
      const at = now();
      await unconfirmFills(tx, s.id, at);
      const a = await tx.selectFrom('policy_accepts').select('listing_id').where('id', '=', s.ref_id).executeTakeFirst();
      if (a?.listing_id) await unsellListings(tx, [a.listing_id], at);
    },
  };
}
