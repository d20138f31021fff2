/**
 * The journal's reactions for kind `exact_offer` (in the journal's or the indexer's transaction).
 *
 * - held (a wait-class refusal: an input a reorg or a held relay left unconfirmed): nothing
 *   changes; the package stays journaled with its claims and recovery relays it again.
 * - released (the node refused the package, or an input was spent elsewhere — typically the
 *   bidder moving its funding output after the seller signed): the authorization is active again
 *   and the offer too (its superseded siblings come back), the listing the accept reserved is
 *   back as the chain has the unit (active, or pending when the accept came before its activation), the fill dropped. A conflict is recorded in the seller's feed
 *   (`exact_offer_accept_conflicted`): the seller signed, and the bidder's spend won.
 * - confirmed: the fill confirmed, the listing sold; other authorizations over the same asset
 *   outpoint retire (the unit moved). A released accept the chain confirmed anyway is used and
 *   filled again first (the chain is the truth).
 * - unconfirmed (a reorg): the fill pending again, the listing reserved again.
 */
import type { SettlementHandlers } from '../../settlement/journal.js';
import { eventId } from '../../trade/event-rows.js';
import { releaseClaimAt, sellListings, unsellListings } from '../listings/index.js';
import { confirmFills, dropFills, unconfirmFills } from '../../trade/fills.js';
import { refillOffer, unfillOffer } from '../offers/index.js';
import { retireAuthorizations, reuseAuthorization, unuseAuthorization } from '../offers/index.js';
import { recordEvent } from '../../trade/owner-events.js';

export function exactOfferHandlers(now: () => number): SettlementHandlers {
  return {
    // The signed bytes cannot be made again (see SettlementHandlers.holdOnWait): wait out a missing confirmation.
    holdOnWait: true,
    onReleased: async (tx, s) => {
      const at = now();
      const a = await tx.selectFrom('exact_authorizations').selectAll().where('id', '=', s.ref_id).executeTakeFirst();
      if (a) {
        if (a.claimed_listing_id) await releaseClaimAt(tx, a.claimed_listing_id, at);
        await unuseAuthorization(tx, s.id, at);
        await unfillOffer(tx, a.offer_id, a.parent_txid, at);
        if (s.state === 'conflicted') {
          await recordEvent(tx, {
            event_id: eventId('exact_offer_accept_conflicted', s.id),
            address: a.seller,
            role: 'seller',
            kind: 'exact_offer_accept_conflicted',
            at,
            listing_id: a.claimed_listing_id,
            asset: a.asset,
            price_sats: a.price_sats,
            txid: a.parent_txid,
            status: 'conflicted',
            data: JSON.stringify({ offer_id: a.offer_id, authorization_id: a.id, funding_slot_id: a.slot_id, asset_utxo: { txid: a.asset_txid, vout: a.asset_vout }, mempool_reason: s.mempool_reason }),
          });
        }
      }
      await dropFills(tx, s.id, at);
    },
    // The parent (the trade) landed and the seller's CPFP child was refused: the sale stands and
    // confirms at the parent's own fee; the seller's feed says the child did not go.
    onPartial: async (tx, s, refused) => {
      const a = await tx.selectFrom('exact_authorizations').selectAll().where('id', '=', s.ref_id).executeTakeFirst();
      if (!a) return;
      const parentRefused = refused.some((r) => r.txid === a.parent_txid);
      await recordEvent(tx, {
        event_id: eventId('exact_offer_child_refused', s.id),
        address: a.seller,
        role: 'seller',
        kind: 'exact_offer_child_refused',
        at: now(),
        listing_id: a.claimed_listing_id,
        asset: a.asset,
        price_sats: a.price_sats,
        txid: a.parent_txid,
        status: parentRefused ? 'refused' : 'relayed',
        data: JSON.stringify({ offer_id: a.offer_id, authorization_id: a.id, refused: refused.map((r) => ({ txid: r.txid, reason: r.reason })) }),
      });
    },
    onConfirmed: async (tx, s, block) => {
      const at = Math.floor(block.seenAt / 1000);
      await confirmFills(tx, s.id, block.height, at);
      let a = await tx.selectFrom('exact_authorizations').selectAll().where('id', '=', s.ref_id).executeTakeFirst();
      if (!a) return;
      if (a.settlement_id !== s.id) {
        // The chain confirmed an accept the journal had released (sim day 9162): the sale happened.
        // What the release undid is done again: the authorization used, the offer filled over its
        // spent slot, and the listing of the unit sold just below: one open there, or one that ended
        // after the accept was journaled (the release had put it back on sale, then its seller
        // delisted it or it expired; the journal keeps milliseconds, listings seconds).
        const listing = await tx
          .selectFrom('listings')
          .select('id')
          .where('utxo_outpoint', '=', a.asset_outpoint)
          .where((eb) => eb.or([eb('state', 'in', ['pending', 'active', 'reserved']), eb.and([eb('state', '=', 'ended'), eb('ended_at', '>=', Math.floor(s.created_at / 1000))])]))
          .orderBy('created_at', 'desc')
          .executeTakeFirst();
        await reuseAuthorization(tx, a, s.id, a.parent_txid, listing?.id ?? null, at);
        await refillOffer(tx, a.offer_id, a.parent_txid, at);
        a = { ...a, claimed_listing_id: listing?.id ?? null };
      }
      if (a.claimed_listing_id) await sellListings(tx, [a.claimed_listing_id], at);
      const others = await tx.selectFrom('exact_authorizations').selectAll().where('asset_outpoint', '=', a.asset_outpoint).where('state', 'in', ['awaiting_bidder', 'active']).execute();
      await retireAuthorizations(tx, others, 'asset_moved', at);
    },
    onUnconfirmed: async (tx, s) => {
      const at = now();
      await unconfirmFills(tx, s.id, at);
      const a = await tx.selectFrom('exact_authorizations').select('claimed_listing_id').where('id', '=', s.ref_id).executeTakeFirst();
      if (a?.claimed_listing_id) await unsellListings(tx, [a.claimed_listing_id], at);
    },
  };
}
