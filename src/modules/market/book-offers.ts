/**
 * The bid side of a collection's book: live public offers that reach the collection — its
 * collection and trait offers, and asset offers on its member assets. Live: active and not
 * past the market expiry. Exact-unit offers (target_outpoint) are private to the seller they
 * target and never shown. `funded_slots` counts distinct funding outputs within one level: one
 * output backing several targets appears in each of their levels and is never summed across
 * them.
 */
import { sql } from 'kysely';
import type { Db } from '../../store/db.js';

export const BOOK_OFFER_LEVELS = 50;
export const BOOK_OFFERS = 100;

const TRAITS = ['scope', 'kind', 'asset', 'collection', 'max_supply_units', 'min_supply_units', 'issued_year', 'series', 'artist'] as const;

export interface OfferLevel {
  price_sats: number;
  funded_slots: number;
  scope: 'asset' | 'collection';
  kind: 'asset' | 'collection' | 'trait';
  asset: string | null;
  collection: string | null;
  max_supply_units: number | null;
  min_supply_units: number | null;
  issued_year: number | null;
  series: number | null;
  artist: string | null;
}

export interface BookOffer extends Omit<OfferLevel, 'funded_slots'> {
  id: string;
  bidder: string;
  bid_txid: string;
  bid_vout: number;
  funding_slot_id: string;
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

export async function offerSide(db: Db, slug: string, now: number): Promise<OfferSide> {
  const live = db
    .selectFrom('offers as o')
    .where('o.state', '=', 'active')
    .where('o.expires_at', '>', now)
    .where('o.target_txid', 'is', null)
    .where((eb) =>
      eb.or([
        eb('o.collection', '=', slug),
        eb.and([eb('o.scope', '=', 'asset'), eb('o.asset', 'in', eb.selectFrom('catalog_assets').select('asset').where('collection_slug', '=', slug))]),
      ]),
    );
  const [levels, offers, tops] = await Promise.all([
    live
      .select(['o.price_sats', ...TRAITS.map((t) => `o.${t}` as const)])
      .select(sql<number>`count(distinct o.slot_id)`.as('funded_slots'))
      .groupBy(['o.price_sats', ...TRAITS.map((t) => `o.${t}` as const)])
      .orderBy('o.price_sats', 'desc')
      .orderBy('o.kind')
      .orderBy('o.asset')
      .limit(BOOK_OFFER_LEVELS + 1)
      .execute(),
    live
      .select(['o.id', 'o.bidder', 'o.bid_txid', 'o.bid_vout', 'o.slot_id', 'o.price_sats', 'o.expires_at', 'o.created_at', ...TRAITS.map((t) => `o.${t}` as const)])
      .orderBy('o.price_sats', 'desc')
      .orderBy('o.created_at')
      .orderBy('o.id')
      .limit(BOOK_OFFERS + 1)
      .execute(),
    live
      .select((eb) => [
        eb.fn.max('o.price_sats').as('best'),
        eb.fn.max(eb.case().when('o.scope', '=', 'collection').then(eb.ref('o.price_sats')).else(null).end()).as('top_collection'),
      ])
      .executeTakeFirst(),
  ]);
  const traits = (r: Record<string, unknown>) => ({
    scope: r.scope as OfferLevel['scope'],
    kind: r.kind as OfferLevel['kind'],
    asset: (r.asset as string | null) ?? null,
    collection: (r.collection as string | null) ?? null,
    max_supply_units: num(r.max_supply_units),
    min_supply_units: num(r.min_supply_units),
    issued_year: num(r.issued_year),
    series: num(r.series),
    artist: (r.artist as string | null) ?? null,
  });
  return {
    offer_levels: levels.slice(0, BOOK_OFFER_LEVELS).map((l) => ({ price_sats: Number(l.price_sats), funded_slots: Number(l.funded_slots), ...traits(l) })),
    offers: offers.slice(0, BOOK_OFFERS).map((o) => ({
      id: o.id,
      bidder: o.bidder,
      bid_txid: o.bid_txid,
      bid_vout: o.bid_vout,
      funding_slot_id: o.slot_id,
      price_sats: Number(o.price_sats),
      ...traits(o),
      expires_at: Number(o.expires_at),
      created_at: Number(o.created_at),
    })),
    top_collection_offer_sats: num(tops?.top_collection),
    best_offer_sats: num(tops?.best),
    offer_levels_truncated: levels.length > BOOK_OFFER_LEVELS,
    offers_truncated: offers.length > BOOK_OFFERS,
  };
}
