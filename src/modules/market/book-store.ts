/**
 * SQL of the collection order book. Every query is bounded and index-driven, so the cost
 * follows what the book shows, never the whole market nor the whole collection:
 *
 * - levels: read from `book_ask_levels` (each level's entry count, kept by the database's
 *   triggers: book-tables.ts, migrations 016 and 025), cheapest first, minus the level's entries
 *   past their expiry (a seek on `book_asks_level`, empty unless something expired unswept), at
 *   most `levels + 1` of them (the extra one only says "truncated"). Expiry is filtered here, at
 *   read time, as everywhere.
 * - listings, the first `perLevel` of each shown level in book order (price, oldest first, id):
 *   one ordered range of `book_ask_top` (each level's first entries with their public row as
 *   JSON text, kept by the same triggers: migration 027). A level whose kept rows cannot cover it (some expired, or more
 *   asked than kept) is read from `book_asks` instead: per-level ranges that each stop after
 *   `perLevel`, then the rows by id.
 * - fills: the most recent non-dropped fills of the member assets.
 */
import { sql } from 'kysely';
import type { Db } from '../../store/db.js';
import { TOP } from '../../store/migrations/025_book_ask_levels.js';
import { ROW_FIELDS } from '../../store/migrations/027_book_ask_row_json.js';
import { FILL_COLUMNS, LISTING_COLUMNS, bookListingOf, fillRow, mediaKindOf, type BookListing, type Fill } from './public-rows.js';
import './book-tables.js';

export interface Level {
  price_sats: number;
  depth: number;
}

/** Ids per `in (…)` list, well under either backend's parameter limit. */
const CHUNK = 500;

const bookOrder = (a: BookListing, b: BookListing) =>
  a.price_sats - b.price_sats || a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Where each field sits in a kept row's JSON array (migration 027); integers arrive as numbers. */
const at = (field: keyof BookListing) => ROW_FIELDS.findIndex(([f]) => f === field);
const [ID, ASSET, LONGNAME, SELLER, TXID, VOUT, QUANTITY, PRICE, CREATED, SUBTYPE, MEDIA, EXPIRES] = (
  ['id', 'asset', 'asset_longname', 'seller', 'utxo_txid', 'utxo_vout', 'quantity_raw', 'price_sats', 'created_at', 'protocol_subtype', 'media_kind', 'expires_at'] as const
).map(at) as [number, number, number, number, number, number, number, number, number, number, number, number];
const listingOfRow = (r: any[]): BookListing => ({
  id: r[ID],
  asset: r[ASSET],
  asset_longname: r[LONGNAME],
  seller: r[SELLER],
  utxo_txid: r[TXID],
  utxo_vout: r[VOUT],
  quantity_raw: r[QUANTITY],
  price_sats: r[PRICE],
  created_at: r[CREATED],
  protocol_subtype: r[SUBTYPE],
  media_kind: mediaKindOf(r[MEDIA]),
  expires_at: r[EXPIRES],
});

export class BookStore {
  constructor(readonly db: Db) {}

  async collectionExists(slug: string): Promise<boolean> {
    return (await this.db.selectFrom('collections').select('slug').where('slug', '=', slug).executeTakeFirst()) !== undefined;
  }

  /** Price levels of live asks, cheapest first; at most `limit` of them. */
  async levels(slug: string, now: number, limit: number): Promise<Level[]> {
    const { rows } = await sql<{ price_sats: number | string; depth: number | string }>`
      SELECT price_sats, depth FROM (
        SELECT lv.price_sats, lv.depth - (
          SELECT count(*) FROM book_asks b WHERE b.collection_slug = lv.collection_slug AND b.price_sats = lv.price_sats AND b.expires_at <= ${now}
        ) AS depth
        FROM book_ask_levels lv WHERE lv.collection_slug = ${slug}
      ) x WHERE depth > 0 ORDER BY price_sats LIMIT ${limit}`.execute(this.db);
    return rows.map((r) => ({ price_sats: Number(r.price_sats), depth: Number(r.depth) }));
  }

  /**
   * The first `perLevel` live listings of each level, in book order: the kept rows of
   * `book_ask_top`, and `book_asks` for any level they do not cover. `kept` false reads every
   * level from `book_asks` (tests compare the two).
   */
  async firstOfEachLevel(slug: string, now: number, levels: readonly Level[], perLevel: number, kept = true): Promise<BookListing[]> {
    if (levels.length === 0) return [];
    const out: BookListing[] = [];
    let missing: Level[] = [...levels];
    if (kept && perLevel <= TOP) {
      const shown = new Map(levels.map((l) => [l.price_sats, l.depth]));
      const found = new Map<number, BookListing[]>();
      for (const l of await this.keptRows(slug, now, levels[0]!.price_sats, levels.at(-1)!.price_sats)) {
        const level = found.get(l.price_sats);
        if (level) level.push(l);
        else found.set(l.price_sats, [l]);
      }
      missing = [];
      for (const [price, depth] of shown) {
        const rows = found.get(price) ?? [];
        // Whole when it holds the level's first `perLevel` live entries: every live one, or `perLevel` of them.
        if (rows.length >= Math.min(depth, perLevel)) out.push(...rows.slice(0, perLevel));
        else missing.push({ price_sats: price, depth });
      }
      if (missing.length === 0) return out;
    }
    const ids = (await this.firstOfEachLevelQuery(slug, now, missing.map((l) => l.price_sats), perLevel).execute()).map((r) => r.listing_id);
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
   * The kept rows of the levels from `from` to `to` sats that are live now, in book order. Each
   * kept row holds its public row as JSON text (migration 027), so the database only joins ready
   * text in order and the driver hands over one string, parsed once here: building an object
   * per row, in SQL or in the driver, cost more than the rest of the book together.
   */
  private async keptRows(slug: string, now: number, from: number, to: number): Promise<BookListing[]> {
    // string_agg: PostgreSQL, and SQLite since 3.44 (better-sqlite3 bundles its own). Its input is
    // the index range in order; SQLite would sort again (a temp b-tree over the text) for an ORDER
    // BY inside the aggregate, so the order is checked below instead.
    const { rows } = await sql<{ rows: string | null }>`
      SELECT string_agg(x.row_json, ',') AS rows FROM (
        SELECT t.row_json FROM book_ask_top t
        WHERE t.collection_slug = ${slug} AND t.price_sats >= ${from} AND t.price_sats <= ${to} AND (t.expires_at IS NULL OR t.expires_at > ${now})
        ORDER BY t.price_sats, t.created_at, t.listing_id
      ) x`.execute(this.db);
    const text = rows[0]?.rows;
    if (!text) return [];
    const out = (JSON.parse(`[${text}]`) as unknown[][]).map(listingOfRow);
    // Neither aggregate promises to keep its input's order (both do in practice): checked, sorted if not.
    return out.every((r, i) => i === 0 || bookOrder(out[i - 1]!, r) < 0) ? out : out.sort(bookOrder);
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
