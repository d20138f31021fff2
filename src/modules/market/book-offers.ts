/**
 * The bid side of a collection's book, read from `book_bids` (kept by triggers: one row per
 * collection a live public offer reaches; migrations/017_book_bids.ts): its collection and trait
 * offers, and asset offers on its member assets. Live: active and not past the market expiry;
 * exact-unit offers are private and never there. Levels are walked in index order (best price
 * first, one group per target) and the walk stops at the levels shown. `funded_slots` counts
 * distinct funding outputs within one level — a level's rows, since a slot has at most one offer
 * per target — and one output backing several targets appears in each of their levels, never
 * summed across them.
 */
import { sql } from 'kysely';
import type { Db, Tx } from '../../store/db.js';
import type { PolicyTarget, TargetKind, TargetScope } from './policy-predicate.js';

export const BOOK_OFFER_LEVELS = 50;
export const BOOK_OFFERS = 100;

/** A level's target: the normalized policy (policy-predicate.ts). */
type OfferTarget = PolicyTarget;

export interface OfferLevel extends OfferTarget {
  price_sats: number;
  funded_slots: number;
}

export interface BookOffer extends OfferTarget {
  id: string;
  bidder: string;
  bid_txid: string;
  bid_vout: number;
  funding_slot_id: string;
  price_sats: number;
  expires_at: number;
  created_at: number;
}

export interface OfferSide {
  offer_levels: OfferLevel[];
  offers: BookOffer[];
  top_collection_offer_sats: number | null;
  best_offer_sats: number | null;
  offer_levels_truncated: boolean;
  offers_truncated: boolean;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** A level's target from its key (offers/rules.ts levelKey: the normalized target as a JSON array). */
function targetOf(key: string): OfferTarget {
  const [scope, kind, asset, collection, max, min, year, series, artist] = JSON.parse(key) as unknown[];
  return { scope: scope as TargetScope, kind: kind as TargetKind, asset: (asset as string) ?? null, collection: (collection as string) ?? null, max_supply_units: num(max), min_supply_units: num(min), issued_year: num(year), series: num(series), artist: (artist as string) ?? null };
}

/** An offer's own columns, as the book shows them (from `offers`, or `policy_offers` with its funding set). */
interface OfferRow {
  id: string;
  bidder: string;
  bid_txid: string;
  bid_vout: number;
  slot_id: string;
  price_sats: number;
  level_key: string;
  expires_at: number;
  created_at: number;
}

/** What the bid side's walks found (offerQueries, run inside the book's one statement: book-store.ts). */
export interface OfferRows {
  levels: { price_sats: number; level_key: string; funded_slots: number }[];
  /** Best first; the offer's own row joined (its columns null for a policy offer, looked up after). */
  picked: ({ offer_id: string; best: number } & (OfferRow | { [K in keyof OfferRow]: null }))[];
  topCollection: number | null;
}

/** The bid side's three walks of `book_bids`, each bounded: levels, the offers shown, the best collection or trait bid. */
export function offerQueries(db: Db | Tx, slug: string, now: number) {
  const live = db.selectFrom('book_bids as b').where('b.collection_slug', '=', slug).where('b.expires_at', '>', now);
  return {
    levels: live
      .select(['b.price_sats', 'b.level_key', (eb) => eb.fn.countAll<number>().as('funded_slots')])
      .groupBy(['b.price_sats', 'b.level_key'])
      .orderBy('b.price_sats', 'desc')
      .orderBy('b.level_key')
      .limit(BOOK_OFFER_LEVELS + 1),
    // The offers' own rows joined as the walk picks them (not a second query by ids).
    picked: live
      .leftJoin('offers as o', 'o.id', 'b.offer_id')
      .select(['b.offer_id', 'b.price_sats as best', 'o.id', 'o.bidder', 'o.bid_txid', 'o.bid_vout', 'o.slot_id', 'o.price_sats', 'o.level_key', 'o.expires_at', 'o.created_at'])
      .orderBy('b.price_sats', 'desc')
      .orderBy('b.created_at')
      .orderBy('b.offer_id')
      .limit(BOOK_OFFERS + 1),
    topCollection: live.select('b.price_sats').where('b.kind', '!=', 'asset').orderBy('b.price_sats', 'desc').limit(1),
  };
}

/** The bid side from its walks; policy offers' rows are read here (they are not in `offers`). */
export async function offerSideOf(db: Db, { levels, picked, topCollection }: OfferRows): Promise<OfferSide> {
  const shown = picked.slice(0, BOOK_OFFERS);
  const ids = shown.map((r) => r.offer_id);
  const rows = shown.filter((r): r is typeof r & OfferRow => r.id !== null);
  // Collection offers (policy_offers, migration 019) share the book: their funding set stands for the slot, the escrow for the bid output.
  const missing = shown.filter((r) => r.id === null).map((r) => r.offer_id);
  const policy = missing.length
    ? await db
        .selectFrom('policy_offers as p')
        .innerJoin('policy_funding_sets as s', 's.id', 'p.funding_set_id')
        .select(['p.id', 'p.bidder', 's.parent_txid as bid_txid', sql<number>`0`.as('bid_vout'), 'p.funding_set_id as slot_id', 'p.price_sats', 'p.level_key', 'p.expires_at', 'p.created_at'])
        .where('p.id', 'in', missing)
        .execute()
    : [];
  const byId = new Map<string, OfferRow>([...rows, ...policy].map((r) => [r.id, r]));
  return {
    offer_levels: levels.slice(0, BOOK_OFFER_LEVELS).map((l) => ({ price_sats: Number(l.price_sats), funded_slots: Number(l.funded_slots), ...targetOf(l.level_key) })),
    offers: ids
      .map((id) => byId.get(id))
      .filter((o): o is NonNullable<typeof o> => !!o)
      .map((o) => ({
        id: o.id,
        bidder: o.bidder,
        bid_txid: o.bid_txid,
        bid_vout: o.bid_vout,
        funding_slot_id: o.slot_id,
        price_sats: Number(o.price_sats),
        ...targetOf(o.level_key),
        expires_at: Number(o.expires_at),
        created_at: Number(o.created_at),
      })),
    top_collection_offer_sats: num(topCollection),
    // The walk is best price first: its first row is the best offer.
    best_offer_sats: num(picked[0]?.best),
    offer_levels_truncated: levels.length > BOOK_OFFER_LEVELS,
    offers_truncated: picked.length > BOOK_OFFERS,
  };
}
