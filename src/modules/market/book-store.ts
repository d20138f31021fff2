/**
 * SQL of the collection order book. Every query is bounded and index-driven, so the cost
 * follows what the book shows, never the whole market nor the whole collection. The book's reads
 * go to the database as ONE statement (`snapshot`: each read a subquery of its own, the small
 * ones as JSON arrays): on PostgreSQL every statement is a round trip whose socket write alone
 * cost more than its query, seven of them most of the book's time.
 *
 * - levels: read from `book_ask_levels` (each level's entry count, kept by the database's
 *   triggers: book-tables.ts, migrations 016 and 025), cheapest first, minus the level's entries
 *   past their expiry (a seek on `book_asks_level`, empty unless something expired unswept), at
 *   most `levels + 1` of them (the extra one only says "truncated"). Expiry is filtered here, at
 *   read time, as everywhere.
 * - listings, the first `perLevel` of each shown level in book order (price, oldest first, id):
 *   one ordered range of `book_ask_top` (each level's first entries with their public row as
 *   JSON text, kept by the same triggers: migration 027), up to the last of the first levels
 *   kept in `book_ask_levels`. A level whose kept rows cannot cover it (some expired, or more
 *   asked than kept, or a level past that range because earlier ones expired whole) is read from
 *   `book_asks` instead: per-level ranges that each stop after `perLevel`, then the rows by id.
 * - fills: the most recent non-dropped fills of the member assets, a range of `book_fills`
 *   (each collection's shown fills by time, kept by triggers: migration 085).
 */
import { sql, SqliteAdapter } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import type { Db, Tx } from '../../store/db.js';
import { compiledOnce } from '../../store/compiled.js';
import { PREPARED_MARK } from '../../store/prepared-mark.js';
import { TOP } from '../../store/migrations/025_book_ask_levels.js';
import { ROW_FIELDS } from '../../store/migrations/027_book_ask_row_json.js';
import { FILL_COLUMNS, LISTING_COLUMNS, bookListingOf, fillRow, mediaKindOf, type BookListing, type Fill } from './public-rows.js';
import { offerQueries, type OfferRows } from './book-offers.js';
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

/** What the book reads, from one statement (BookStore.snapshot). */
export interface BookSnapshot {
  exists: boolean;
  /** The first `levels + 1` live levels (the extra one only says "truncated"). */
  levels: Level[];
  /** The live kept rows of the first `levels` kept levels, in book order. */
  kept: BookListing[];
  fills: Fill[];
  bids: OfferRows;
}

/** A JSON array column: PostgreSQL's driver parses json itself, SQLite hands over the text. */
const arrayOf = <T>(v: unknown): T[] => (typeof v === 'string' ? JSON.parse(v) : (v ?? [])) as T[];
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export class BookStore {
  constructor(readonly db: Db) {}

  /** Every read of the book in one statement (snapshotStatement, below). */
  async snapshot(slug: string, now: number, levels: number, fills: number): Promise<BookSnapshot> {
    const row = (await snapshotStatement(this.db, slug, now, levels + 1, levels, fills)).rows[0] as Record<string, unknown>;
    return {
      exists: row.found !== null,
      levels: arrayOf<{ price_sats: number; depth: number }>(row.levels).map((l) => ({ price_sats: Number(l.price_sats), depth: Number(l.depth) })),
      kept: keptRowsOf(row.kept),
      fills: arrayOf<Parameters<typeof fillRow>[0]>(row.fills).map(fillRow),
      bids: { levels: arrayOf(row.bid_levels), picked: arrayOf(row.bids), topCollection: num(row.top_collection) },
    };
  }

  /** Price levels of live asks, cheapest first; at most `limit` of them. */
  async levels(slug: string, now: number, limit: number): Promise<Level[]> {
    const rows = await levelsQuery(this.db, slug, now, limit).execute();
    return rows.map((r) => ({ price_sats: Number(r.price_sats), depth: Number(r.depth) }));
  }

  /**
   * The first `perLevel` live listings of each level, in book order: the `kept` rows (the
   * snapshot's), and `book_asks` for any level they do not cover. `kept` null reads every level
   * from `book_asks` (tests compare the two).
   */
  async firstOfEachLevel(slug: string, now: number, levels: readonly Level[], perLevel: number, kept: readonly BookListing[] | null): Promise<BookListing[]> {
    if (levels.length === 0) return [];
    const out: BookListing[] = [];
    let missing: Level[] = [...levels];
    if (kept && perLevel <= TOP) {
      const shown = new Map(levels.map((l) => [l.price_sats, l.depth]));
      const found = new Map<number, BookListing[]>();
      for (const l of kept) {
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

}

function levelsQuery(db: Db | Tx, slug: string, now: number, limit: number) {
  const counted = db
    .selectFrom('book_ask_levels as lv')
    .select([
      'lv.price_sats',
      sql<number>`lv.depth - (SELECT count(*) FROM book_asks b WHERE b.collection_slug = lv.collection_slug AND b.price_sats = lv.price_sats AND b.expires_at <= ${now})`.as('depth'),
    ])
    .where('lv.collection_slug', '=', slug);
  return db.selectFrom(counted.as('x')).select(['x.price_sats', 'x.depth']).where('x.depth', '>', 0).orderBy('x.price_sats').limit(limit);
}

/**
 * The live kept rows of the collection's first `levels` kept levels, in book order, as one
 * text: each kept row holds its public row as JSON text (migration 027), so the database only
 * joins ready text in order and the driver hands over one string (keptRowsOf parses it):
 * building an object per row, in SQL or in the driver, cost more than the rest of the book.
 * string_agg: PostgreSQL, and SQLite since 3.44 (better-sqlite3 bundles its own). Its input is
 * the index range in order; SQLite would sort again (a temp b-tree over the text) for an ORDER
 * BY inside the aggregate, so keptRowsOf checks the order instead.
 */
function keptText(slug: string, now: number, levels: number) {
  // The levels first, then their kept rows: an index range per level on both backends (a price
  // bound computed in the statement left PostgreSQL guessing, and scanning the table). CROSS
  // JOIN makes SQLite keep that loop order; PostgreSQL plans it as any inner join. No ORDER BY:
  // levels in price order, each read along the primary key (price, created_at, listing_id), come
  // out in book order already, and sorting them again was a tenth of PostgreSQL's read; the
  // order is checked where the text is parsed (keptRowsOf) and sorted there if it ever is not.
  return sql<string | null>`(
    SELECT string_agg(x.row_json, ',') FROM (
      SELECT t.row_json
      FROM (SELECT lv.price_sats FROM book_ask_levels lv WHERE lv.collection_slug = ${slug} ORDER BY lv.price_sats LIMIT ${levels}) y
      CROSS JOIN book_ask_top t
      WHERE t.collection_slug = ${slug} AND t.price_sats = y.price_sats AND (t.expires_at IS NULL OR t.expires_at > ${now})
    ) x
  )`;
}

/**
 * The most recent fills of the member assets, pending and confirmed (dropped never shows): a
 * range of the collection's kept fills (`book_fills`, migration 085, only shown fills of
 * members) newest first, stopping at `limit`, then each fill by id. CROSS JOIN keeps SQLite's
 * loops in that order; PostgreSQL plans it as any inner join.
 */
function fillsQuery(db: Db | Tx, slug: string, limit: number) {
  return db
    .selectFrom('book_fills as bf')
    .crossJoin('fills as f')
    .select(FILL_COLUMNS)
    .where('bf.collection_slug', '=', slug)
    .whereRef('f.id', '=', 'bf.fill_id')
    .orderBy('bf.broadcast_at', 'desc')
    .orderBy('bf.fill_id', 'desc')
    .limit(limit);
}

/**
 * Every read of the book in one statement: whether the collection exists, its first `levels`
 * ask levels (+ 1), their kept rows, its recent `fills`, and the bid side's walks
 * (book-offers.ts). Each subquery is the bounded, index-driven read it would be alone. Built and
 * compiled once per store (store/compiled.ts): building this statement's dozen subqueries with
 * Kysely on every read cost a tenth of the book's client time.
 */
const snapshotStatement = compiledOnce((db, slug: string, now: number, levelsPlusOne: number, levels: number, fills: number) => {
  const jsonArrayFrom = db.getExecutor().adapter instanceof SqliteAdapter ? sqliteJsonArrayFrom : pgJsonArrayFrom;
  const bids = offerQueries(db, slug, now);
  return (
    db
      .selectNoFrom((eb) => [
        eb.selectFrom('collections').select('slug').where('slug', '=', slug).as('found'),
        jsonArrayFrom(levelsQuery(db, slug, now, levelsPlusOne)).as('levels'),
        keptText(slug, now, levels).as('kept'),
        jsonArrayFrom(fillsQuery(db, slug, fills)).as('fills'),
        jsonArrayFrom(bids.levels).as('bid_levels'),
        jsonArrayFrom(bids.picked).as('bids'),
        bids.topCollection.as('top_collection'),
      ])
      // The same text for every collection: planned once per connection (store/prepared-mark.ts).
      .modifyFront(sql.raw(PREPARED_MARK))
  );
});

/** The kept rows' text (keptText) as public rows, in book order. */
function keptRowsOf(text: unknown): BookListing[] {
  if (typeof text !== 'string' || text === '') return [];
  const out = (JSON.parse(`[${text}]`) as unknown[][]).map(listingOfRow);
  // Neither aggregate promises to keep its input's order (both do in practice): checked, sorted if not.
  return out.every((r, i) => i === 0 || bookOrder(out[i - 1]!, r) < 0) ? out : out.sort(bookOrder);
}
