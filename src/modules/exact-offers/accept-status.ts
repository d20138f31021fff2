/**
 * The seller's saved accept of an exact offer, for recovery (the spec's retry table: after a
 * 502/503 or a timeout during the completion, read the saved operation status first). The same
 * settlement fields as checkout's `GET /v1/checkout/quotes/{id}` (settlement/operation.ts).
 *
 * status: not_accepted (no settlement yet; the authorization can still be accepted) | expired
 * (none, and the authorization can no longer be accepted: expired, cancelled or retired) |
 * broadcasting | broadcast | confirmed | failed (claims released: the authorization is active
 * again while it lives; accept it again with fresh signatures).
 */
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { notFound } from '../../http/errors.js';
import { latestSettlement, settledStatus, settlementFields } from '../../settlement/operation.js';

export async function acceptStatus(ctx: Context, seller: string, id: string) {
  const db = ctx.store.db;
  const a = await db.selectFrom('exact_authorizations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!a || a.seller !== seller) throw notFound('exact offer authorization');
  const s = await latestSettlement(db, 'exact_offer', a.id);
  const live = a.state === 'active' && Number(a.expires_at) > nowSeconds(ctx.clock);
  const status = s ? settledStatus(s) : live ? 'not_accepted' : 'expired';
  const tip = s?.state === 'confirmed' ? await ctx.indexer.cursor() : undefined;
  const txs = s ? (JSON.parse(s.txs) as Array<{ txid: string }>) : [];
  return {
    authorization_id: a.id,
    offer_id: a.offer_id,
    status,
    authorization_status: a.state,
    settlement_id: s?.id ?? null,
    settlement_state: s?.state ?? null,
    txid: s ? txs[0]!.txid : null,
    child_txid: txs.length > 1 ? txs[1]!.txid : null,
    ...settlementFields(s, status === 'failed', tip?.height ?? null, s ? ctx.journal.holdOf(s) : null),
  };
}
