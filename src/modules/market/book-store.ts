/**
 * SQL of the collection order book. Every query is bounded and index-driven, so the cost
 * follows the collection's own listings and what the book shows, never the whole market:
 *
 * - levels: public fillable listings of the member assets grouped by price, cheapest first, at
 *   most `levels + 1` groups (the extra one only says "truncated"). Walked from the member
 *   assets (catalog_assets_members, then listings_member per asset), index entries only.
 * - listings, the first `perLevel` of each shown level (oldest first, then id), by one of two
 *   plans chosen from the level depths the first query returned:
 *   - `rankedInLevels`, when the shown levels hold few listings in all: one window over the
 *     same index walk ranks them, then only the winners' rows are read by id;
 *   - `firstOfEachLevel`, when levels are deep (thousands at one price): one statement of
 *     per-level branches, each an ordered range of listings_book at that price that stops
 *     after `perLevel` members.
 *   Both give the same rows in the same order; neither loads the collection to group in JS.
 * - fills: the most recent non-dropped fills of the member assets.
 */
import { sql } from 'kysely';
import type { Db } from '../../store/db.js';
import { publicFillable } from './listing-stats.js';
import { FILL_COLUMNS, LISTING_COLUMNS, bookListingOf, fillRow, type BookListing, type Fill } from './public-rows.js';

export interface Level {
  price_sats: number;
  depth: number;
}

/** Ids per `in (…)` list, well under either backend's parameter limit. */
const CHUNK = 500;

const bookOrder = (a: BookListing, b: BookListing) =>
  a.price_sats - b.price_sats || a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class BookStore {
  constructor(readonly db: Db) {}

  async collectionExists(slug: string): Promise<boolean> {
    return (await this.db.selectFrom('collections').select('slug').where('slug', '=', slug).executeTakeFirst()) !== undefined;
  }

  /** Public fillable listings of the collection's members (one catalogue row per asset and collection, so no duplicates). */
  private members(slug: string, now: number) {
    return this.db
      .selectFrom('listings as l')
      .innerJoin('catalog_assets as ca', (j) => j.onRef('ca.asset', '=', 'l.asset').on('ca.collection_slug', '=', slug))
      .where(publicFillable(now));
  }

  /**
   * The same rows, walked from the collection's member assets (`cross join` keeps SQLite's
   * loop order: catalogue first, then each asset's listings on `listings_member`), so the cost
   * is the collection's own listings, whatever the rest of the market holds at those prices.
   */
  private fromMembers(slug: string, now: number) {
    return this.db
      .selectFrom('catalog_assets as ca')
      .crossJoin('listings as l')
      .whereRef('l.asset', '=', 'ca.asset')
      .where('ca.collection_slug', '=', slug)
      .where(publicFillable(now));
  }

  /** Price levels, cheapest first; at most `limit` of them. */
  async levels(slug: string, now: number, limit: number): Promise<Level[]> {
    const rows = await this.levelsQuery(slug, now, limit).execute();
    return rows.map((r) => ({ price_sats: Number(r.price_sats), depth: Number(r.depth) }));
  }

  levelsQuery(slug: string, now: number, limit: number) {
    return this.fromMembers(slug, now)
      .select('l.price_sats')
      .select((eb) => eb.fn.countAll().as('depth'))
      .groupBy('l.price_sats')
      .orderBy('l.price_sats')
      .limit(limit);
  }

  /** Plan for shallow levels: rank every listing from `from` to `to` sats on the index, read the winners. */
  async rankedInLevels(slug: string, now: number, from: number, to: number, perLevel: number): Promise<BookListing[]> {
    const rows = await this.rankedQuery(slug, now, from, to, perLevel).execute();
    const ids = rows.map((r) => r.id);
    const out: BookListing[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      // Left joins keep the id lookups as the outer loop (the rows are members already).
      const part = await this.db
        .selectFrom('listings as l')
        .leftJoin('catalog_assets as ca', (j) => j.onRef('ca.asset', '=', 'l.asset').on('ca.collection_slug', '=', slug))
        .leftJoin('cp_assets as a', 'a.asset', 'l.asset')
        .select([...LISTING_COLUMNS, 'l.expires_at'])
        .where('l.id', 'in', ids.slice(i, i + CHUNK))
        .execute();
      out.push(...part.map(bookListingOf));
    }
    return out.sort(bookOrder);
  }

  rankedQuery(slug: string, now: number, from: number, to: number, perLevel: number) {
    const ranked = this.fromMembers(slug, now)
      .select('l.id')
      .select((eb) => eb.fn.agg<number>('row_number').over((o) => o.partitionBy('l.price_sats').orderBy('l.created_at').orderBy('l.id')).as('rank'))
      .where('l.price_sats', '>=', from)
      .where('l.price_sats', '<=', to)
      .as('r');
    return this.db.selectFrom(ranked).select('r.id').where('r.rank', '<=', perLevel);
  }

  /** Plan for deep levels: per level, an index range in book order that stops after `perLevel` rows. */
  async firstOfEachLevel(slug: string, now: number, prices: readonly number[], perLevel: number): Promise<BookListing[]> {
    if (prices.length === 0) return [];
    const rows = await this.firstOfEachLevelQuery(slug, now, prices, perLevel).execute();
    return rows.map(bookListingOf).sort(bookOrder);
  }

  firstOfEachLevelQuery(slug: string, now: number, prices: readonly number[], perLevel: number) {
    const level = (price: number) =>
      this.db
        .selectFrom(
          this.members(slug, now)
            .leftJoin('cp_assets as a', 'a.asset', 'l.asset')
            .select([...LISTING_COLUMNS, 'l.expires_at'])
            .where('l.price_sats', '=', price)
            .orderBy('l.created_at')
            .orderBy('l.id')
            .limit(perLevel)
            .as('b'),
        )
        .selectAll();
    let q = level(prices[0]!);
    for (const p of prices.slice(1)) q = q.unionAll(level(p));
    return q;
  }

  /** The most recent fills of the member assets, pending and confirmed (dropped never shows). */
  async recentFills(slug: string, limit: number): Promise<Fill[]> {
    const rows = await this.db
      .selectFrom('fills as f')
      .select(FILL_COLUMNS)
      .where('f.state', 'in', ['pending', 'confirmed'])
      .where((eb) => eb.exists(eb.selectFrom('catalog_assets as ca').select(sql.lit(1).as('one')).whereRef('ca.asset', '=', 'f.asset').where('ca.collection_slug', '=', slug)))
      .orderBy('f.broadcast_at', 'desc')
      .orderBy('f.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(fillRow);
  }
}
