/**
 * Bulk selection: a seller chooses several authorizations at once and asks which can be accepted
 * together before signing any. One answer per item, in request order: two chosen authorizations
 * over the same funding slot are `duplicate_funding_slot` (a slot fills once), one that can no
 * longer be accepted is `offer_selection_unavailable` (used, retired, expired, its offer ended),
 * an id that is not the seller's is `not_found`. Nothing is reserved.
 */
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { authorizationStatus } from './view.js';

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
  return ids.map((id) => {
    const a = byId.get(id);
    if (!a || a.seller !== seller) return { authorization_id: id, ok: false, code: 'not_found', error: 'no such authorization', funding_slot_id: null };
    const offer = offers.get(a.offer_id);
    const status = authorizationStatus(a, now);
    if (status !== 'active' || !offer || offer.state !== 'active' || offer.expires_at <= now) {
      return { authorization_id: id, ok: false, code: 'offer_selection_unavailable', error: `the authorization is ${status}${offer && offer.state !== 'active' ? `, its offer ${offer.state}` : ''}`, funding_slot_id: a.slot_id };
    }
    if ((slotCount.get(a.slot_id) ?? 0) > 1) {
      return { authorization_id: id, ok: false, code: 'duplicate_funding_slot', error: 'another chosen authorization is backed by the same funding slot; only one can fill', funding_slot_id: a.slot_id };
    }
    return { authorization_id: id, ok: true, code: null, error: null, funding_slot_id: a.slot_id };
  });
}
