/**
 * Account maintenance on drafts (the account-maintenance budget):
 *
 * - Discard (DELETE /v1/listing-preflights/{id}): forgets a draft that has nothing in flight:
 *   an unsigned or expired attach template, a `ready`/`prepared` unit not listed, or a `failed`
 *   draft. The id answers 404 afterwards and its idempotency key can be used again; an attached
 *   unit stays attached (it is still in GET /v1/inventory/prepared). A draft whose attach is
 *   being relayed or confirmed, or that has a listing, cannot be discarded (409 state_changed;
 *   delist the listing instead).
 * - Price (POST /v1/listing-preflights/{id}/price): sets the draft's ask before its listing is
 *   signed; the listing template and platform fee follow.
 */
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { nowSeconds } from '../../clock.js';
import { draftStatus } from './draft-view.js';
import { LIVE, type DraftRow, type ListingStore } from './store.js';
import { checkPrice } from './rules.js';

const DISCARDABLE: DraftRow['status'][] = ['awaiting_attach_signature', 'ready', 'prepared', 'failed'];
const PRICEABLE: DraftRow['status'][] = ['awaiting_attach_signature', 'broadcasting', 'awaiting_indexer', 'ready'];

export async function discardDraft(ctx: Context, store: ListingStore, d: DraftRow): Promise<{ id: string; discarded: true }> {
  const status = draftStatus(d, nowSeconds(ctx.clock));
  const live = d.listing_id ? await store.listing(d.listing_id) : undefined;
  if (!DISCARDABLE.includes(d.status) || (live && LIVE.includes(live.state))) {
    throw new ApiError('state_changed', `a ${status} draft cannot be discarded${live ? '; delist its listing instead' : ''}`, { status });
  }
  const res = await store.db.deleteFrom('listing_drafts').where('id', '=', d.id).where('status', '=', d.status).executeTakeFirst();
  if (Number(res.numDeletedRows) !== 1) throw new ApiError('state_changed', 'the draft changed meanwhile; read it again');
  return { id: d.id, discarded: true };
}

export async function setDraftPrice(ctx: Context, store: ListingStore, d: DraftRow, price: number): Promise<DraftRow> {
  const now = nowSeconds(ctx.clock);
  const status = draftStatus(d, now);
  if (d.purpose !== 'listing') throw new ApiError('state_changed', 'an attach template has no price; create a listing preflight for the unit');
  if (d.listing_id || !PRICEABLE.includes(d.status) || status === 'expired') {
    throw new ApiError('state_changed', d.listing_id ? 'the draft is listed; reprice the listing instead' : `a ${status} draft cannot be priced`, { status });
  }
  checkPrice(price);
  const res = await store.db
    .updateTable('listing_drafts')
    .set({ price_sats: price, updated_at: now })
    .where('id', '=', d.id)
    .where('status', '=', d.status)
    .where('listing_id', 'is', null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) throw new ApiError('state_changed', 'the draft changed meanwhile; read it again');
  return (await store.draft(d.id))!;
}
