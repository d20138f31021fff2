/**
 * The best live public offer that could buy one unit of an asset now: its asset offers, and
 * the collection and trait offers of its curated collections whose policy it matches (the one
 * predicate, policy-predicate.ts, against each of its catalogue memberships). Exact-unit offers
 * are private to the unit's holder and not counted.
 */
import type { Db } from '../../store/db.js';
import { assetMatches, normalizeTarget } from './policy-predicate.js';
import { assetMemberships } from './memberships.js';

const PAGE = 200;

export interface BestOffer {
  asset: string;
  best_offer_sats: number | null;
  offer: { id: string; bidder: string; price_sats: number; scope: string; kind: string; collection: string | null; expires_at: number; created_at: number } | null;
  live_offers: number;
}

export async function bestOffer(db: Db, asset: string, now: number): Promise<BestOffer> {
  const memberships = await assetMemberships(db, asset);
  const slugs = memberships.map((m) => m.collection_slug);
  const live = db
    .selectFrom('offers')
    .selectAll()
    .where('state', '=', 'active')
    .where('expires_at', '>', now)
    .where('target_txid', 'is', null)
    .where((eb) => eb.or([eb.and([eb('scope', '=', 'asset'), eb('asset', '=', asset)]), ...(slugs.length ? [eb.and([eb('scope', '=', 'collection'), eb('collection', 'in', slugs)])] : [])]));

  let best: Awaited<ReturnType<typeof live.execute>>[number] | null = null;
  let count = 0;
  // Best price first, a page at a time: the first matching row of the ordered walk is the best.
  for (let offset = 0; ; offset += PAGE) {
    const rows = await live.orderBy('price_sats', 'desc').orderBy('created_at').orderBy('id').limit(PAGE).offset(offset).execute();
    for (const o of rows) {
      const t = normalizeTarget({ ...o, max_supply_units: o.max_supply_units === null ? null : Number(o.max_supply_units), min_supply_units: o.min_supply_units === null ? null : Number(o.min_supply_units) });
      if (o.scope === 'asset' || (t.ok && assetMatches(t.target, memberships))) {
        count++;
        best ??= o;
      }
    }
    if (rows.length < PAGE) break;
  }
  return {
    asset,
    best_offer_sats: best ? Number(best.price_sats) : null,
    offer: best
      ? { id: best.id, bidder: best.bidder, price_sats: Number(best.price_sats), scope: best.scope, kind: best.kind, collection: best.collection, expires_at: Number(best.expires_at), created_at: Number(best.created_at) }
      : null,
    live_offers: count,
  };
}
