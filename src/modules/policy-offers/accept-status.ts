/**
 * The seller's saved accept of a collection offer, for recovery (the spec's retry table: after a
 * 502/503 or a timeout during the completion, read the saved operation status first). The same
 * settlement fields as checkout's `GET /v1/checkout/quotes/{id}` (settlement/operation.ts).
 *
 * status: quoted (the accept quote can still be signed and completed) | expired (never completed,
 * past its deadline) | broadcasting | broadcast | confirmed | failed (claims released; the
 * funding set ended: see the collection offer).
 */
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { notFound } from '../../http/errors.js';
import { latestSettlement, settledStatus, settlementFields } from '../../settlement/operation.js';

export async function acceptStatus(ctx: Context, seller: string, id: string) {
  const db = ctx.store.db;
  const q = await db.selectFrom('policy_accepts').selectAll().where('id', '=', id).executeTakeFirst();
  if (!q || q.seller !== seller) throw notFound('collection-offer accept quote');
  const s = await latestSettlement(db, 'policy_accept', q.id);
  const status = s ? settledStatus(s) : Number(q.expires_at) > nowSeconds(ctx.clock) ? 'quoted' : 'expired';
  const tip = s?.state === 'confirmed' ? await ctx.indexer.cursor() : undefined;
  const txs = s ? (JSON.parse(s.txs) as Array<{ txid: string }>) : [];
  return {
    accept_id: q.id,
    offer_id: q.offer_id,
    funding_set_id: q.funding_set_id,
    status,
    expires_at: Number(q.expires_at),
    settlement_id: s?.id ?? null,
    settlement_state: s?.state ?? null,
    parent_txid: s ? txs[0]!.txid : null,
    txid: s ? q.expected_txid : null,
    ...settlementFields(s, status === 'failed', tip?.height ?? null, s ? ctx.journal.holdOf(s) : null),
  };
}
