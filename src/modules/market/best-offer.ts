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

type Row = { id: string; bidder: string; price_sats: number; scope: string; kind: string; asset: string | null; collection: string | null; max_supply_units: number | null; min_supply_units: number | null; issued_year: number | null; series: number | null; artist: string | null; expires_at: number; created_at: number };

/** Bids (offers, minus exact units) and collection offers' alternatives (policy_offers) compete alike. */
const TABLES = ['offers', 'policy_offers'] as const;

export async function bestOffer(db: Db, asset: string, now: number): Promise<BestOffer> {
  const memberships = await assetMemberships(db, asset);
  const slugs = memberships.map((m) => m.collection_slug);
  let best: Row | null = null;
  let count = 0;
  for (const table of TABLES) {
    const base = db.selectFrom(`${table} as o` as 'offers as o');
    const live = (table === 'offers' ? base.where('o.target_txid', 'is', null) : base)
      .select(['o.id', 'o.bidder', 'o.price_sats', 'o.scope', 'o.kind', 'o.asset', 'o.collection', 'o.max_supply_units', 'o.min_supply_units', 'o.issued_year', 'o.series', 'o.artist', 'o.expires_at', 'o.created_at'])
      .where('o.state', '=', 'active')
      .where('o.expires_at', '>', now)
      .where((eb) => eb.or([eb.and([eb('o.scope', '=', 'asset'), eb('o.asset', '=', asset)]), ...(slugs.length ? [eb.and([eb('o.scope', '=', 'collection'), eb('o.collection', 'in', slugs)])] : [])]));
    // Best price first, a page at a time: the first matching row of the ordered walk is the table's best.
    for (let offset = 0; ; offset += PAGE) {
      const rows = (await live.orderBy('o.price_sats', 'desc').orderBy('o.created_at').orderBy('o.id').limit(PAGE).offset(offset).execute()) as Row[];
      for (const o of rows) {
        const t = normalizeTarget({ ...o, max_supply_units: o.max_supply_units === null ? null : Number(o.max_supply_units), min_supply_units: o.min_supply_units === null ? null : Number(o.min_supply_units) });
        if (o.scope === 'asset' || (t.ok && assetMatches(t.target, memberships))) {
          count++;
          if (!best || better(o, best)) best = o;
        }
      }
      if (rows.length < PAGE) break;
    }
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

/** Higher price, then older, then the smaller id: the order of one table's walk, across both. */
function better(a: Row, b: Row): boolean {
  const pa = Number(a.price_sats);
  const pb = Number(b.price_sats);
  if (pa !== pb) return pa > pb;
  if (Number(a.created_at) !== Number(b.created_at)) return Number(a.created_at) < Number(b.created_at);
  return a.id < b.id;
}
