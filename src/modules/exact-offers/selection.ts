/**
 * Bulk selection: a seller chooses several authorizations at once and asks which can be accepted
 * together before signing any. A selection naming two of the seller's authorizations over the same
 * funding slot is refused whole, 409 `duplicate_funding_slot` (a slot fills once; the spec's error,
 * with `funding_slot_id` and the `authorization_ids` that share it). Otherwise one answer per item,
 * in request order: one that can no longer be accepted is `offer_selection_unavailable` (used,
 * retired, expired, its offer ended), an id that is not the seller's is `not_found`. Nothing is reserved.
 */
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { authorizationStatus } from './view.js';
import { ApiError } from '../../http/errors.js';

export async function validateSelection(ctx: Context, seller: string, ids: string[]) {
  const now = nowSeconds(ctx.clock);
  const rows = await ctx.store.db.selectFrom('exact_authorizations').selectAll().where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const offers = new Map(
    (rows.length ? await ctx.store.db.selectFrom('offers').select(['id', 'state', 'expires_at']).where('id', 'in', rows.map((r) => r.offer_id)).execute() : []).map((o) => [o.id, o]),
  );
  const slotCount = new Map<string, number>();
  for (const id of ids) {
    const a = byId.get(id);
    if (a && a.seller === seller) slotCount.set(a.slot_id, (slotCount.get(a.slot_id) ?? 0) + 1);
  }
  const shared = [...slotCount].find(([, n]) => n > 1);
  if (shared) {
    const [slot] = shared;
    const named = ids.filter((id) => byId.get(id)?.seller === seller && byId.get(id)!.slot_id === slot);
    throw new ApiError('duplicate_funding_slot', `authorizations ${named.join(', ')} are backed by the same funding slot; only one can fill: choose one`, { funding_slot_id: slot, authorization_ids: named });
  }
  return ids.map((id) => {
    const a = byId.get(id);
    if (!a || a.seller !== seller) return { authorization_id: id, ok: false, code: 'not_found', error: 'no such authorization', funding_slot_id: null };
    const offer = offers.get(a.offer_id);
    const status = authorizationStatus(a, now);
    if (status !== 'active' || !offer || offer.state !== 'active' || offer.expires_at <= now) {
      return { authorization_id: id, ok: false, code: 'offer_selection_unavailable', error: `the authorization is ${status}${offer && offer.state !== 'active' ? `, its offer ${offer.state}` : ''}`, funding_slot_id: a.slot_id };
    }
    return { authorization_id: id, ok: true, code: null, error: null, funding_slot_id: a.slot_id };
  });
}
