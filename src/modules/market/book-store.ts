/**
 * SQL of the collection order book. Every query is bounded and index-driven, so the cost
 * follows what the book shows, never the whole market nor the whole collection:
 *
 * - levels: read from `book_asks` (one row per collection and active listing, kept by the
 *   database's triggers: book-tables.ts), cheapest first, by walking its level index from one
 *   distinct price to the next (a recursive query that seeks, never a group-by over every
 *   listing) and counting each shown level's live entries, at most `levels + 1` of them (the
 *   extra one only says "truncated"). Expiry is filtered here, at read time, as everywhere.
 * - listings, the first `perLevel` of each shown level in book order (price, oldest first, id):
 *   one ordered range of the same table when the shown levels are shallow, else one statement of
 *   per-level ranges each stopping after `perLevel`; then the rows by id.
 * - fills: the most recent non-dropped fills of the member assets.
 */
import { sql } from 'kysely';
import type { Db } from '../../store/db.js';
import { FILL_COLUMNS, LISTING_COLUMNS, bookListingOf, fillRow, type BookListing, type Fill } from './public-rows.js';
import './book-tables.js';

export interface Level {
  price_sats: number;
  depth: number;
}

/** Ids per `in (…)` list, well under either backend's parameter limit. */
const CHUNK = 500;
/** Up to this many entries in the shown levels, one ordered range reads them all; above, per-level ranges. */
export const RANGE_MAX_ROWS = 2_000;

const bookOrder = (a: BookListing, b: BookListing) =>
  a.price_sats - b.price_sats || a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class BookStore {
  constructor(readonly db: Db) {}

  async collectionExists(slug: string): Promise<boolean> {
    return (await this.db.selectFrom('collections').select('slug').where('slug', '=', slug).executeTakeFirst()) !== undefined;
  }

  /** Price levels of live asks, cheapest first; at most `limit` of them. */
  async levels(slug: string, now: number, limit: number): Promise<Level[]> {
    const live = (alias: string) => sql.raw(`(${alias}.expires_at IS NULL OR ${alias}.expires_at > `);
    const { rows } = await sql<{ price_sats: number | string; depth: number | string }>`
      WITH RECURSIVE lv(price, n) AS (
        SELECT (SELECT min(b.price_sats) FROM book_asks b WHERE b.collection_slug = ${slug} AND ${live('b')}${now})), 1
        UNION ALL
        SELECT (SELECT min(b.price_sats) FROM book_asks b WHERE b.collection_slug = ${slug} AND b.price_sats > lv.price AND ${live('b')}${now})), lv.n + 1
        FROM lv WHERE lv.price IS NOT NULL AND lv.n < ${limit}
      )
      SELECT lv.price AS price_sats,
        (SELECT count(*) FROM book_asks b WHERE b.collection_slug = ${slug} AND b.price_sats = lv.price AND ${live('b')}${now})) AS depth
      FROM lv WHERE lv.price IS NOT NULL ORDER BY lv.price`.execute(this.db);
    return rows.map((r) => ({ price_sats: Number(r.price_sats), depth: Number(r.depth) }));
  }

  /**
   * The first `perLevel` live listings of each level, in book order. Shallow levels (up to
   * `rangeMaxRows` entries in all) are one ordered range of the level index cut per level here;
   * deep ones one statement of per-level ranges that each stop after `perLevel`.
   */
  async firstOfEachLevel(slug: string, now: number, levels: readonly Level[], perLevel: number, rangeMaxRows = RANGE_MAX_ROWS): Promise<BookListing[]> {
    if (levels.length === 0) return [];
    const shown = levels.reduce((n, l) => n + l.depth, 0);
    if (shown <= rangeMaxRows) return this.range(slug, now, levels[0]!.price_sats, levels.at(-1)!.price_sats, perLevel, shown);
    const ids = (await this.firstOfEachLevelQuery(slug, now, levels.map((l) => l.price_sats), perLevel).execute()).map((r) => r.listing_id);
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

  /**
   * Shallow levels: every live entry from `from` to `to` sats with its listing, in book order, cut
   * per level. `rows` is how many the levels counted: as a LIMIT it tells PostgreSQL's planner
   * the range is small (its estimate of a price range can be far off), so it walks the index
   * and joins listings by key instead of hashing the whole table.
   */
  private async range(slug: string, now: number, from: number, to: number, perLevel: number, rows: number): Promise<BookListing[]> {
    const found = await this.db
      .selectFrom('book_asks as b')
      .innerJoin('listings as l', 'l.id', 'b.listing_id')
      .leftJoin('catalog_assets as ca', (j) => j.onRef('ca.asset', '=', 'l.asset').on('ca.collection_slug', '=', slug))
      .leftJoin('cp_assets as a', 'a.asset', 'l.asset')
      .select([...LISTING_COLUMNS, 'l.expires_at'])
      .where('b.collection_slug', '=', slug)
      .where('b.price_sats', '>=', from)
      .where('b.price_sats', '<=', to)
      .where((eb) => eb.or([eb('b.expires_at', 'is', null), eb('b.expires_at', '>', now)]))
      .orderBy('b.price_sats')
      .orderBy('b.created_at')
      .orderBy('b.listing_id')
      .limit(rows)
      .execute();
    const out: BookListing[] = [];
    let price: number | undefined;
    let taken = 0;
    for (const r of found) {
      const l = bookListingOf(r);
      if (l.price_sats !== price) [price, taken] = [l.price_sats, 0];
      if (taken++ < perLevel) out.push(l);
    }
    return out;
  }

  firstOfEachLevelQuery(slug: string, now: number, prices: readonly number[], perLevel: number) {
    const level = (price: number) =>
      this.db
        .selectFrom(
          this.db
            .selectFrom('book_asks as b')
            .select('b.listing_id')
            .where('b.collection_slug', '=', slug)
            .where('b.price_sats', '=', price)
            .where((eb) => eb.or([eb('b.expires_at', 'is', null), eb('b.expires_at', '>', now)]))
            .orderBy('b.created_at')
            .orderBy('b.listing_id')
            .limit(perLevel)
            .as('x'),
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
