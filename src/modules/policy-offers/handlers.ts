/**
 * The journal's reactions for kind `policy_accept` (in the journal's or the indexer's transaction).
 *
 * - held (a wait-class refusal: an input a reorg or a held relay left unconfirmed): nothing
 *   changes; the package stays journaled with its claims and recovery relays it again.
 * - released (the node refused the package, or an input was spent elsewhere — the bidder racing
 *   its own funding, or the seller its unit): the listing the accept reserved is active again, the
 *   fill dropped, and the funding set ends invalid — the signer co-signed that one child and will
 *   never sign another for the parent, so the bidder places again (its money never moved).
 * - confirmed: the fill confirmed, the listing sold (even one its seller delisted after a release),
 *   and the parent's out 1 (the anchor's value back to the market wallet) joins the pool as a free
 *   anchor. A set a release had ended is filled again (refillFundingSet): the chain is the truth.
 * - unconfirmed (a reorg): the fill pending again, the listing reserved again.
 */
import type { SettlementHandlers, SettlementRow } from '../../settlement/journal.js';
import type { Tx } from '../../store/db.js';
import { releaseClaimAt, sellListings, unsellListings } from '../listings/index.js';
import { eventId } from '../../trade/event-rows.js';
import { confirmFills, dropFills, unconfirmFills } from '../../trade/fills.js';
import { anchorFromParent } from './anchors.js';
import { failFilledSet, refillFundingSet } from './lifecycle.js';
import { recordEvent } from '../../trade/owner-events.js';

export function policyAcceptHandlers(now: () => number): SettlementHandlers {
  return {
    // The signed bytes cannot be made again (see SettlementHandlers.holdOnWait): wait out a missing confirmation.
    holdOnWait: true,
    onReleased: async (tx, s, outcome) => tradeFailed(tx, s, outcome === 'conflicted', now()),
    // The parent landed (its escrow is on the network and keeps its claims) and the accept child
    // was refused: the trade did not happen. The unit's claim was freed by the journal; the set
    // ends as on a release (the signer never signs another child), the bidder refunds the escrow
    // by its refund leaf.
    onPartial: async (tx, s, refused) => tradeFailed(tx, s, refused.some((r) => r.conflict), now()),
    onConfirmed: async (tx, s, block) => {
      const at = Math.floor(block.seenAt / 1000);
      const a = await tx.selectFrom('policy_accepts').selectAll().where('id', '=', s.ref_id).executeTakeFirst();
      // Only the parent confirmed (its child was refused): no sale; the anchor's value is back.
      const tradeConfirmed = !a || s.txid === a.expected_txid;
      if (tradeConfirmed) await confirmFills(tx, s.id, block.height, at);
      if (!a) return;
      if (tradeConfirmed && a.listing_id) await sellListings(tx, [a.listing_id], at);
      const set = await tx.selectFrom('policy_funding_sets').selectAll().where('id', '=', a.funding_set_id).executeTakeFirst();
      // The chain confirmed an accept the journal had released: the sale happened, the set is filled after all.
      if (tradeConfirmed && set?.state === 'invalid' && set.accept_id === a.id) await refillFundingSet(tx, set, a.offer_id, at);
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

/** The seller signed and the trade did not happen: the listing back, the set ended, the fill dropped, a conflict in the seller's feed. */
async function tradeFailed(tx: Tx, s: SettlementRow, conflicted: boolean, at: number): Promise<void> {
  const a = await tx.selectFrom('policy_accepts').selectAll().where('id', '=', s.ref_id).executeTakeFirst();
  if (a) {
    if (a.listing_id) await releaseClaimAt(tx, a.listing_id, at);
    const set = await tx.selectFrom('policy_funding_sets').selectAll().where('id', '=', a.funding_set_id).executeTakeFirst();
    if (set) await failFilledSet(tx, set, conflicted ? 'package_conflicted' : 'package_rejected', at);
    // The seller signed and someone's spend won (typically the bidder moving its funding): say so in the seller's feed.
    if (conflicted) {
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
}
