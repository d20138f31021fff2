/** Reads of collection offers (the writes belong to lifecycle.ts and anchors.ts). */
import { sql } from 'kysely';
import type { Context } from '../../context.js';
import { before } from '../../store/keyset.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { assetMatches } from '../market/index.js';
import { asTarget, assetTraits } from './eligibility.js';
import { estimateChildVsize } from './estimate.js';
import { estimatedSellerNet } from './preflight.js';
import type { FundingSetRow, PolicyOfferRow } from './lifecycle.js';
import { bidderHistories, fundingSetView, offerView } from './view.js';

/** A P2WPKH seller script (its shape only): the estimate assumes the common unit output. */
const P2WPKH_SELLER = new Uint8Array([0x00, 0x14, ...new Uint8Array(20)]);

/** Offer records with their sets, each with the seller-net estimate at the current rate (for a P2WPKH unit). */
export async function viewOffers(ctx: Context, offers: PolicyOfferRow[], now: number) {
  if (!offers.length) return [];
  const db = ctx.store.db;
  const sets = new Map((await db.selectFrom('policy_funding_sets').selectAll().where('id', 'in', [...new Set(offers.map((o) => o.funding_set_id))]).execute()).map((s) => [s.id, s]));
  const histories = await bidderHistories(db, [...new Set(offers.map((o) => o.bidder))]);
  const rate = await defaultFeeRate(ctx);
  const childVsize = estimateChildVsize(P2WPKH_SELLER);
  return offers.map((o) => {
    const set = sets.get(o.funding_set_id)!;
    return offerView(o, set, now, estimatedSellerNet(ctx, Number(o.price_sats), Number(set.parent_vsize) + childVsize, rate), histories.get(o.bidder));
  });
}

export async function fundingSetRecord(ctx: Context, set: FundingSetRow, now: number) {
  const offers = await ctx.store.db.selectFrom('policy_offers').selectAll().where('funding_set_id', '=', set.id).orderBy('alt_index').execute();
  return { ...fundingSetView(set), offers: await viewOffers(ctx, offers, now) };
}

export function bidderOffers(ctx: Context, bidder: string, limit: number, after: [number, string] | undefined) {
  let q = ctx.store.db.selectFrom('policy_offers').selectAll().where('bidder', '=', bidder);
  if (after) q = q.where(before(sql.ref('created_at'), sql.ref('id'), after));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export const ASSET_OFFERS_MAX = 100;

/** Every live alternative the asset matches: its asset scope, and the collection and trait policies of its curated collections; best price first. */
export async function assetOffers(ctx: Context, asset: string, now: number) {
  const db = ctx.store.db;
  const traits = await assetTraits(ctx, asset);
  const slugs = [...new Set(traits.map((t) => t.collection_slug))];
  const rows = await db
    .selectFrom('policy_offers')
    .selectAll()
    .where('state', '=', 'active')
    .where('expires_at', '>', now)
    .where((eb) => eb.or([eb('asset', '=', asset), ...(slugs.length ? [eb.and([eb('scope', '=', 'collection'), eb('collection', 'in', slugs)])] : [])]))
    .orderBy('price_sats', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1000)
    .execute();
  const matching = rows.filter((o) => (o.scope === 'asset' && o.asset === asset && (o.collection === null || slugs.includes(o.collection))) || assetMatches(asTarget(o), traits));
  return viewOffers(ctx, matching.slice(0, ASSET_OFFERS_MAX), now);
}

/** Soft-cancelled alternatives (each with the signer's answer), with their parent, newest first by (created_at, id). */
export function cancelledAlternatives(ctx: Context, limit: number, after: [number, string] | undefined) {
  let q = ctx.store.db
    .selectFrom('policy_offers as o')
    .innerJoin('policy_funding_sets as s', 's.id', 'o.funding_set_id')
    .select(['o.id', 'o.funding_set_id', 'o.bidder', 'o.state', 'o.end_reason', 'o.expires_at', 'o.cancel_json', 'o.created_at', 's.parent_txid'])
    .where('o.cancel_json', 'is not', null);
  if (after) q = q.where(before(sql.ref('o.created_at'), sql.ref('o.id'), after));
  return q.orderBy('o.created_at', 'desc').orderBy('o.id', 'desc').limit(limit).execute();
}
