/**
 * SQL of the collection order book. Every query is bounded by a LIMIT and driven by an index,
 * so the cost follows what the book shows, not how many listings the collection holds:
 *
 * - levels: public fillable listings of the collection's member assets, grouped by price,
 *   cheapest first, at most `levels + 1` groups (the extra one only says "truncated");
 * - listings: the first `perLevel` listings of each shown level (oldest first, then id), one
 *   statement of per-level LIMIT branches, never loaded whole and grouped in JS;
 * - fills: the most recent non-dropped fills of the member assets.
 */
import { sql } from 'kysely';
import type { Db } from '../../store/db.js';
import { publicFillable } from './listing-stats.js';
import { FILL_COLUMNS, LISTING_COLUMNS, bookListingOf, fillOf, type BookListing, type Fill } from './public-rows.js';

export interface Level {
  price_sats: number;
  depth: number;
}

export class BookStore {
  constructor(private readonly db: Db) {}

  async collectionExists(slug: string): Promise<boolean> {
    return (await this.db.selectFrom('collections').select('slug').where('slug', '=', slug).executeTakeFirst()) !== undefined;
  }

  /** Listings of the collection's members (one catalogue row per asset and collection, so no duplicates). */
  private members(slug: string) {
    return this.db
      .selectFrom('listings as l')
      .innerJoin('catalog_assets as ca', (j) => j.onRef('ca.asset', '=', 'l.asset').on('ca.collection_slug', '=', slug));
  }

  /** Price levels, cheapest first; at most `limit` of them. */
  async levels(slug: string, now: number, limit: number): Promise<Level[]> {
    const rows = await this.levelsQuery(slug, now, limit).execute();
    return rows.map((r) => ({ price_sats: Number(r.price_sats), depth: Number(r.depth) }));
  }

  levelsQuery(slug: string, now: number, limit: number) {
    return this.members(slug)
      .select('l.price_sats')
      .select((eb) => eb.fn.countAll().as('depth'))
      .where(publicFillable(now))
      .groupBy('l.price_sats')
      .orderBy('l.price_sats')
      .limit(limit);
  }

  /**
   * The first `perLevel` listings of each given level, by price, then age, then id: one
   * statement of per-level branches, each an ordered index range that stops at `perLevel`.
   */
  async listingsAt(slug: string, now: number, prices: readonly number[], perLevel: number): Promise<BookListing[]> {
    if (prices.length === 0) return [];
    const rows = await this.listingsQuery(slug, now, prices, perLevel).execute();
    return rows.map(bookListingOf);
  }

  /** The statement of `listingsAt` (separate so its plan can be inspected). */
  listingsQuery(slug: string, now: number, prices: readonly number[], perLevel: number) {
    const level = (price: number) =>
      this.db
        .selectFrom(
          this.members(slug)
            .leftJoin('cp_assets as a', 'a.asset', 'l.asset')
            .select([...LISTING_COLUMNS, 'l.expires_at'])
            .where(publicFillable(now))
            .where('l.price_sats', '=', price)
            .orderBy('l.created_at')
            .orderBy('l.id')
            .limit(perLevel)
            .as('b'),
        )
        .selectAll();
    let q = level(prices[0]!);
    for (const p of prices.slice(1)) q = q.unionAll(level(p));
    return q.orderBy('price_sats').orderBy('created_at').orderBy('id');
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
    return rows.map(fillOf);
  }
}
