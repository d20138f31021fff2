/**
 * POST /v1/listing-preflights/{id}/listing: the seller's signed half for a draft whose asset
 * outpoint is known. A `ready` draft (attach confirmed and verified, or a reused unit checked
 * again now) gives an `active` listing at once and the draft becomes `completed`; a draft whose
 * attach is still confirming gives a `pending` listing that the indexer activates.
 */
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { isUniqueViolation } from '../../store/db.js';
import { nowSeconds } from '../../clock.js';
import { canSignListing, draftCosigned, draftStatus, listingTemplate } from './draft-view.js';
import { listingRow, type SignedListingInput } from './attach-submit.js';
import { checkReuseUtxo } from './reuse.js';
import type { DraftRow, ListingRow, ListingStore } from './store.js';
import { checkListingExpiry } from './rules.js';
import { verifySignedListing } from './signed.js';
import { createListing } from './lifecycle.js';

export function finalizedListing(l: ListingRow) {
  return {
    id: l.id,
    asset: l.asset,
    seller: l.seller,
    price_sats: l.price_sats,
    utxo_txid: l.utxo_txid,
    utxo_vout: l.utxo_vout,
    expires_at: l.expires_at,
    preflight_id: l.draft_id,
    state: l.state,
    version: l.version,
    protocol_subtype: l.protocol_subtype,
  };
}

export async function submitListing(ctx: Context, store: ListingStore, d: DraftRow, body: SignedListingInput): Promise<ListingRow> {
  const network = ctx.config.NETWORK;
  const now = nowSeconds(ctx.clock);
  const status = draftStatus(d, now);
  if (d.purpose !== 'listing') throw new ApiError('state_changed', 'an attach template is not listed; create a listing preflight (mode=reuse) for the prepared unit');
  if (d.listing_id) throw new ApiError('state_changed', 'this draft already has a listing', { listing_id: d.listing_id });
  if (!canSignListing(d, status)) {
    if (status === 'expired') throw new ApiError('expired', 'the preflight expired before its attach was signed; create a new one');
    throw new ApiError('state_changed', `the draft is ${status}; a listing cannot be signed now`, { status });
  }
  if (d.price_sats === null) throw new ApiError('state_changed', 'set a price on the draft before signing the listing', { next_action: 'set_price' });
  checkListingExpiry(body.expires_at, now);
  const template = listingTemplate(d, network);
  if (!template) throw new Error('listing template unavailable');
  verifySignedListing(body.psbt_hex, template.psbt_hex, d.seller, network, 'body.psbt_hex', draftCosigned(d, network));

  const ready = status === 'ready';
  let utxoHeight: number | null = null;
  if (ready && d.mode === 'reuse') {
    const unit = await checkReuseUtxo(ctx, store, d.seller, { txid: d.asset_txid!, vout: d.asset_vout! }, d.asset, d.quantity_raw, { field: 'asset_utxo' });
    utxoHeight = unit.height;
  } else if (ready && !(await ctx.chain.bitcoin.getTxOut(d.asset_txid!, d.asset_vout!, true))) {
    throw new ApiError('state_changed', 'the asset UTXO was spent; the unit can no longer be listed from this draft');
  }

  const row = listingRow(d, body, ready ? 'active' : 'pending', now, utxoHeight);
  try {
    await store.db.transaction().execute(async (tx) => {
      await createListing(tx, row);
      const res = await tx
        .updateTable('listing_drafts')
        .set({ listing_id: row.id, status: ready ? 'completed' : d.status, updated_at: now })
        .where('id', '=', d.id)
        .where('status', '=', d.status)
        .where('listing_id', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new ApiError('state_changed', 'the draft changed meanwhile; read it again');
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new ApiError('state_changed', 'the asset UTXO is already listed');
    throw e;
  }
  return row;
}
