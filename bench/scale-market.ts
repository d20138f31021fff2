/**
 * The bench market of issue #33 item 1: `listings` public listings and `offers` live offers over
 * `collections` collections, the largest (`slug(0)`) with `largest.listings` listings over
 * `largest.levels` price levels, `largest.assets` assets and `largest.offers` offers; holdings
 * (the balance view) and a month of confirmed fills beside them.
 *
 * Built in the store's real schema (after the real migrations), so every read goes through the
 * service's real query paths. Built fast: every table filled by ONE `INSERT … SELECT` over an
 * integer series inside one transaction, the database's own triggers off (PostgreSQL: the
 * session's replication role; SQLite: dropped and recreated from their own text) and the
 * secondary indexes dropped, then the tables the triggers keep (book_asks, book_ask_levels,
 * book_ask_top, book_bids, holding_totals, collection_holding_totals, book_fills, holder_assets
 * and the analytics read's analytics_* ones) filled set-wise with the migrations' own backfills, the
 * indexes built again, and ANALYZE. `bulk: false` fills the same rows with the triggers and indexes
 * on (the test compares the two: test/store/bulk-market.test.ts).
 */
import { sql, SqliteAdapter, type Kysely, type Transaction } from 'kysely';
import type { Db } from '../src/store/db.js';
import { fillBookAsks } from '../src/store/migrations/016_book_asks.js';
import { fillBookAskLevels } from '../src/store/migrations/025_book_ask_levels.js';
import { fillRowJson } from '../src/store/migrations/027_book_ask_row_json.js';
import { fillHoldingTotals } from '../src/store/migrations/070_holding_totals.js';
import { fillBookFills } from '../src/store/migrations/085_book_fills.js';
import { fillHolderAssets } from '../src/store/migrations/085_holder_assets.js';
import { fillAnalyticsTotals } from '../src/store/migrations/080_analytics_totals.js';

export interface MarketSize {
  collections: number;
  listings: number;
  offers: number;
  /** Per asset. */
  holders: number;
  fills: number;
  largest: { listings: number; levels: number; assets: number; offers: number };
  /** Every other collection: assets and price levels each. */
  other: { assets: number; levels: number };
}

export const MARKET_1M: MarketSize = {
  collections: 1_000,
  listings: 1_000_000,
  offers: 1_000_000,
  holders: 10,
  fills: 100_000,
  largest: {
    listings: 100_000,
    levels: 2_000,
    assets: 10_000,
    offers: 100_000,
  },
  other: { assets: 100, levels: 100 },
};

/** The same shape at a hundredth: the largest collection's book shows the same 50 levels of 20. */
export const MARKET_10K: MarketSize = {
  collections: 10,
  listings: 10_000,
  offers: 10_000,
  holders: 10,
  fills: 1_000,
  largest: { listings: 1_000, levels: 50, assets: 100, offers: 1_000 },
  other: { assets: 100, levels: 100 },
};

export const slugOf = (c: number) => `scale-${c}`;
/** Offers per funding slot (a placement's targets), and slots per placement. */
const PER_SLOT = 10;
const SLOTS_PER_PLACEMENT = 20;
const DAY = 86_400;

/** The analytics read's kept tables (migration 080). */
export const ANALYTICS_TOTALS = [
  'analytics_sellers',
  'analytics_ask_levels',
  'analytics_backing_prices',
  'analytics_backings',
  'analytics_bid_levels',
  'analytics_bidders',
  'analytics_counts',
  'analytics_sales_hours',
  'analytics_sales_minutes',
  'analytics_sale_last',
  'analytics_sale_last_hours',
  'analytics_sale_last_minutes',
];
/** Tables whose rows the load writes (their secondary indexes are built after). */
const LOADED = ['collections', 'catalog_assets', 'cp_assets', 'cp_holdings', 'cp_view_blocks', 'listings', 'offer_placements', 'offer_slots', 'offers', 'fills'];
const DERIVED = ['book_asks', 'book_ask_levels', 'book_ask_top', 'book_bids', 'holding_totals', 'collection_holding_totals', 'book_fills', 'holder_assets', ...ANALYTICS_TOTALS];

const isSqlite = (db: Kysely<any>) => db.getExecutor().adapter instanceof SqliteAdapter;

/** The few SQL spellings the two backends do not share. */
function dialect(sqlite: boolean) {
  return {
    series: (n: number) => (sqlite ? `(WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${n - 1}) SELECT i FROM s) g` : `generate_series(0, ${n - 1}) AS g(i)`),
    pad: (e: string, n: number) => (sqlite ? `printf('%0${n}d', ${e})` : `lpad((${e})::text, ${n}, '0')`),
    hex64: (e: string) => (sqlite ? `printf('%064x', ${e})` : `lpad(to_hex(${e}), 64, '0')`),
  };
}

/** The INSERT … SELECT statements of the base tables, in foreign-key order. */
export function marketStatements(size: MarketSize, now: number, sqlite: boolean): string[] {
  const { series, pad, hex64 } = dialect(sqlite);
  const C = size.collections;
  const L0 = size.largest;
  const O = size.other;
  const assetsTotal = L0.assets + (C - 1) * O.assets;
  // Asset index space: [0, L0.assets) the largest collection's, then O.assets per other collection.
  const assetOf = (idx: string) =>
    `(CASE WHEN ${idx} < ${L0.assets} THEN 0 ELSE 1 + (${idx} - ${L0.assets}) / ${O.assets} END) AS c, (CASE WHEN ${idx} < ${L0.assets} THEN ${idx} ELSE (${idx} - ${L0.assets}) % ${O.assets} END) AS k`;
  const assetName = (c: string, k: string) => `'S' || ${c} || 'X' || ${k}`;
  const slots = Math.ceil(size.offers / PER_SLOT);
  const largestSlots = Math.ceil(L0.offers / PER_SLOT);
  const placements = Math.ceil(slots / SLOTS_PER_PLACEMENT);
  const seller = (e: string) => `'bc1qseller' || ((${e}) % 5000)`;
  return [
    `INSERT INTO collections (slug, name, description, sort_order)
      SELECT 'scale-' || i, 'Scale ' || i, NULL, i FROM ${series(C)}`,
    `INSERT INTO catalog_assets (asset, collection_slug, is_primary, artist, max_supply_units, issued_year, series, media_kind, protocol_subtype)
      SELECT ${assetName('c', 'k')}, 'scale-' || c, 1, 'artist' || (k % 20), 100 + (k % 900), 2016 + (k % 5), k % 7, 'image', NULL
      FROM (SELECT ${assetOf('i')} FROM ${series(assetsTotal)}) a`,
    // As the balance view records them: indivisible, so a one-unit listing holds 1 raw.
    `INSERT INTO cp_assets (asset, asset_longname, divisible, refreshed_height, refreshed_at, stale)
      SELECT ${assetName('c', 'k')}, NULL, 0, 100, ${now}, 0 FROM (SELECT ${assetOf('i')} FROM ${series(assetsTotal)}) a`,
    `INSERT INTO cp_holdings (asset, address, units)
      SELECT ${assetName('c', 'k')}, 'bc1qholder' || ((c * 131 + k * 31 + h * 1009) % (CASE WHEN c = 0 THEN 20000 ELSE 50000 END)), 1 + (k + h) % 5
      FROM (SELECT ${assetOf(`(i / ${size.holders})`)}, i % ${size.holders} AS h FROM ${series(assetsTotal * size.holders)}) a`,
    `INSERT INTO cp_view_blocks (height, as_of_event_index) VALUES (100, 1000)`,
    // Listing i: the largest collection's first, then the others in turn; `m` counts within the collection.
    `INSERT INTO listings (id, operation_id, draft_id, seller, asset, quantity_raw, utxo_txid, utxo_vout, utxo_outpoint, utxo_value_sats, price_sats, state, end_reason,
        signed_psbt, version, expires_at, created_at, updated_at, activated_at, ended_at, protocol_subtype)
      SELECT 'lst_sc' || ${pad('i', 8)}, 'op_sc' || i, 'pf_sc' || i, ${seller('i')},
        ${assetName('c', `(CASE WHEN c = 0 THEN m % ${L0.assets} ELSE m % ${O.assets} END)`)}, '1',
        ${hex64('i')}, 0, ${hex64('i')} || ':0', 330,
        5000 + 1000 * (CASE WHEN c = 0 THEN m % ${L0.levels} ELSE (m + m / ${O.assets}) % ${O.levels} END), 'active', NULL,
        NULL, 1, ${now + 365 * DAY}, ${now} - (i % ${DAY}), ${now}, ${now}, NULL, 'plain'
      FROM (SELECT i, CASE WHEN i < ${L0.listings} THEN 0 ELSE 1 + (i - ${L0.listings}) % ${C - 1} END AS c,
              CASE WHEN i < ${L0.listings} THEN i ELSE (i - ${L0.listings}) / ${C - 1} END AS m FROM ${series(size.listings)}) x`,
    `INSERT INTO offer_placements (id, bidder, price_sats, platform_fee_sats, delivery_mode, receive_address, expires_at, targets, funding_txid, request_sha256, created_at)
      SELECT 'pl_sc' || i, 'bc1qbidder' || (i % 3000), 10000, 546, 'detached', 'bc1qbidder' || (i % 3000), ${now + 365 * DAY}, '[]', NULL, 'bench' || i, ${now}
      FROM ${series(placements)}`,
    `INSERT INTO offer_slots (id, placement_id, bidder, txid, vout, outpoint, value_sats, state, spent_txid, spent_height, created_at, updated_at)
      SELECT 'fs_sc' || i, 'pl_sc' || (i / ${SLOTS_PER_PLACEMENT}), 'bc1qbidder' || ((i / ${SLOTS_PER_PLACEMENT}) % 3000), ${hex64(`i + 1000000000`)}, 0,
        ${hex64(`i + 1000000000`)} || ':0', 10000, 'open', NULL, NULL, ${now}, ${now}
      FROM ${series(slots)}`,
    // Offer i: slot s = i / 10, target t = i % 10 of the slot's collection c: t 0 the collection,
    // 1..4 a trait (series t - 1), 5..9 an asset of it. One price per slot (its placement's).
    `INSERT INTO offers (id, placement_id, slot_id, target_index, bidder, bid_txid, bid_vout, price_sats, platform_fee_sats, scope, kind, asset, collection,
        max_supply_units, min_supply_units, issued_year, series, artist, level_key, target_txid, target_vout, delivery_mode, receive_address, state, end_reason,
        expires_at, created_at, updated_at, ended_at)
      SELECT 'of_sc' || ${pad('i', 8)}, 'pl_sc' || (s / ${SLOTS_PER_PLACEMENT}), 'fs_sc' || s, t, bidder, ${hex64(`s + 1000000000`)}, 0,
        5000 + (s % 400) * 100, 546,
        CASE WHEN t < 5 THEN 'collection' ELSE 'asset' END,
        CASE WHEN t = 0 THEN 'collection' WHEN t < 5 THEN 'trait' ELSE 'asset' END,
        CASE WHEN t < 5 THEN NULL ELSE ${assetName('c', 'ak')} END,
        CASE WHEN t < 5 THEN 'scale-' || c ELSE NULL END,
        NULL, NULL, NULL, CASE WHEN t BETWEEN 1 AND 4 THEN t - 1 ELSE NULL END, NULL,
        CASE WHEN t = 0 THEN '["collection","collection",null,"scale-' || c || '",null,null,null,null,null]'
             WHEN t < 5 THEN '["collection","trait",null,"scale-' || c || '",null,null,null,' || (t - 1) || ',null]'
             ELSE '["asset","asset","' || ${assetName('c', 'ak')} || '",null,null,null,null,null,null]' END,
        NULL, NULL, 'detached', bidder, 'active', NULL, ${now + 365 * DAY}, ${now} - (i % ${DAY}), ${now}, NULL
      FROM (SELECT i, s, t, c, 'bc1qbidder' || ((s / ${SLOTS_PER_PLACEMENT}) % 3000) AS bidder,
              (CASE WHEN c = 0 THEN (s * 5 + t) % ${L0.assets} ELSE (s * 5 + t) % ${O.assets} END) AS ak
            FROM (SELECT i, i / ${PER_SLOT} AS s, i % ${PER_SLOT} AS t,
                    CASE WHEN i / ${PER_SLOT} < ${largestSlots} THEN 0 ELSE 1 + (i / ${PER_SLOT} - ${largestSlots}) % ${C - 1} END AS c
                  FROM ${series(size.offers)}) y) x`,
    // A month of confirmed sales over every asset.
    `INSERT INTO fills (id, settlement_id, txid, kind, ref_id, asset, asset_longname, quantity_raw, seller, buyer, payer, price_sats, platform_fee_sats, delivery_mode,
        state, broadcast_at, confirmed_at, block_index, created_at, updated_at)
      SELECT 'fl_sc' || i, 'st_sc' || i, ${hex64(`i + 2000000000`)}, 'listing', 'lst_sold' || i, ${assetName('c', 'k')}, NULL, '1',
        ${seller('i * 7')}, 'bc1qbuyer' || (i % 4000), 'bc1qbuyer' || (i % 4000), 5000 + (i % 300) * 1000, 546, 'detached',
        'confirmed', ${now} - (i % ${29 * DAY}), ${now} - (i % ${29 * DAY}) + 600, 90, ${now}, ${now}
      FROM (SELECT i, ${assetOf(`(i % ${assetsTotal})`)} FROM ${series(size.fills)}) a`,
  ];
}

/**
 * book_bids of every live public offer, set-wise: the rows migration 017's trigger (addOffer)
 * writes for each offer, a collection offer in its collection, an asset offer in each
 * collection of its asset.
 */
const FILL_BOOK_BIDS = `INSERT INTO book_bids (collection_slug, price_sats, level_key, created_at, offer_id, slot_id, kind, expires_at)
  SELECT o.collection, o.price_sats, o.level_key, o.created_at, o.id, o.slot_id, o.kind, o.expires_at
    FROM offers o WHERE o.scope = 'collection' AND o.state = 'active' AND o.target_txid IS NULL
  UNION ALL
  SELECT ca.collection_slug, o.price_sats, o.level_key, o.created_at, o.id, o.slot_id, o.kind, o.expires_at
    FROM offers o JOIN catalog_assets ca ON ca.asset = o.asset
    WHERE o.scope = 'asset' AND (o.collection IS NULL OR o.collection = ca.collection_slug) AND o.state = 'active' AND o.target_txid IS NULL`;

/** Secondary indexes of `tables` (not those behind a primary key or unique constraint): name and the statement that makes it. */
async function secondaryIndexes(trx: Transaction<any>, sqlite: boolean, tables: string[]): Promise<Array<{ name: string; sql: string }>> {
  const list = tables.map((t) => `'${t}'`).join(', ');
  if (sqlite) {
    const r = await sql.raw<{ name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${list})`).execute(trx);
    return r.rows;
  }
  const r = await sql
    .raw<{ name: string; sql: string }>(
      `SELECT i.indexname AS name, i.indexdef AS sql FROM pg_indexes i WHERE i.schemaname = current_schema() AND i.tablename IN (${list})
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = current_schema()::regnamespace)`,
    )
    .execute(trx);
  return r.rows;
}

/**
 * Fills an empty, migrated store with the market of `size`. `bulk` (the default): triggers off,
 * indexes after, derived tables set-wise; otherwise row by row through the triggers.
 */
export async function loadMarket(db: Db, size: MarketSize, now: number, opts: { bulk?: boolean } = {}): Promise<void> {
  const sqlite = isSqlite(db);
  const bulk = opts.bulk ?? true;
  const statements = marketStatements(size, now, sqlite);
  await db.transaction().execute(async (trx) => {
    if (!bulk) {
      for (const s of statements) await sql.raw(s).execute(trx);
      return;
    }
    let triggers: string[] = [];
    if (sqlite) {
      const r = await sql.raw<{ name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`).execute(trx);
      triggers = r.rows.map((t) => t.sql);
      for (const t of r.rows) await sql.raw(`DROP TRIGGER ${t.name}`).execute(trx);
    } else {
      // Triggers (and the foreign keys' own) off for this transaction only.
      await sql.raw(`SET LOCAL session_replication_role = replica`).execute(trx);
      await sql.raw(`SET LOCAL maintenance_work_mem = '256MB'`).execute(trx);
      await sql.raw(`SET LOCAL synchronous_commit = off`).execute(trx);
    }
    const indexes = await secondaryIndexes(trx, sqlite, [...LOADED, ...DERIVED]);
    for (const i of indexes) await sql.raw(`DROP INDEX ${i.name}`).execute(trx);
    for (const s of statements) await sql.raw(s).execute(trx);
    await fillBookAsks(trx);
    await fillBookAskLevels(trx);
    await fillRowJson(trx);
    await sql.raw(FILL_BOOK_BIDS).execute(trx);
    await fillHoldingTotals(trx);
    await fillBookFills(trx);
    await fillHolderAssets(trx);
    await fillAnalyticsTotals(trx);
    for (const i of indexes) await sql.raw(i.sql).execute(trx);
    for (const t of triggers) await sql.raw(t).execute(trx);
  });
  if (sqlite) await sql.raw('ANALYZE').execute(db);
  else for (const t of [...LOADED, ...DERIVED]) await sql.raw(`VACUUM ANALYZE ${t}`).execute(db);
}
