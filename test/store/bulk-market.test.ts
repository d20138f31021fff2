/**
 * The bench's bulk load (bench/scale-market.ts: triggers off, indexes after, the derived tables
 * filled set-wise by the migrations' own backfills) leaves exactly the rows the triggers write
 * when the same market is inserted with them on: the book read at a million rows reads what a
 * live market would hold. Also the backfills that migrations 016, 025 and 027 now export, and
 * the analytics read over both (the kept aggregates of migration 080).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testStore, type TestStoreHandle } from '../helpers/store.js';
import { loadMarket, MARKET_10K, slugOf, type MarketSize } from '../../bench/scale-market.js';
import type { Db } from '../../src/store/db.js';
import { BookService } from '../../src/modules/market/book-service.js';
import { BookStore } from '../../src/modules/market/book-store.js';
import { AnalyticsService } from '../../src/modules/market/analytics-service.js';

const handles: TestStoreHandle[] = [];
after(async () => {
  for (const h of handles) await h.cleanup();
});

/** A small market of the same shape: three collections, levels that overflow the kept rows. */
const SMALL: MarketSize = {
  ...MARKET_10K,
  collections: 3,
  listings: 600,
  offers: 400,
  fills: 50,
  holders: 3,
  largest: { listings: 300, levels: 10, assets: 20, offers: 200 },
  other: { assets: 10, levels: 7 },
};

const ORDER: Record<string, string> = {
  book_asks: 'collection_slug, price_sats, created_at, listing_id',
  book_ask_levels: 'collection_slug, price_sats',
  book_ask_top: 'collection_slug, price_sats, created_at, listing_id',
  book_bids: 'collection_slug, offer_id',
  holding_totals: 'collection_slug, address',
  collection_holding_totals: 'collection_slug',
  book_fills: 'collection_slug, broadcast_at, fill_id',
  holder_assets: 'collection_slug, address, asset',
  analytics_sellers: 'seller',
  analytics_ask_levels: 'price_sats',
  analytics_backing_prices: 'backing, price_sats',
  analytics_backings: 'backing',
  analytics_bid_levels: 'price_sats',
  analytics_bidders: 'bidder',
  analytics_counts: 'name',
  analytics_sales_hours: 'hour, kind',
  analytics_sales_minutes: 'minute, kind',
  analytics_sale_last: 'role, key',
  analytics_sale_last_hours: 'role, hour',
  analytics_sale_last_minutes: 'role, minute',
};

async function derived(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [t, order] of Object.entries(ORDER)) {
    out[t] = (await sql.raw<Record<string, unknown>>(`SELECT * FROM ${t} ORDER BY ${order}`).execute(db)).rows.map((r) => ({ ...r }));
  }
  return out;
}

test('the bulk load leaves the rows the triggers write, and the triggers and indexes in place', async () => {
  const now = 1_800_000_000;
  const bulk = await testStore();
  handles.push(bulk);
  const rows = await testStore();
  handles.push(rows);
  await loadMarket(bulk.store.db, SMALL, now);
  await loadMarket(rows.store.db, SMALL, now, { bulk: false });
  const [a, b] = [await derived(bulk.store.db), await derived(rows.store.db)];
  for (const t of Object.keys(ORDER)) {
    assert.ok(b[t]!.length > 0, `${t} is filled by the triggers`);
    assert.deepEqual(a[t], b[t], t);
  }
  // The top keeps 20 of a level of 30, with its text.
  assert.equal((a.book_ask_top as Array<{ row_json: string | null }>).filter((r) => r.row_json === null).length, 0);
  // The book reads the same from both.
  const book = (db: Db) => new BookService(new BookStore(db), () => now).book(slugOf(0));
  assert.deepEqual(await book(bulk.store.db), await book(rows.store.db));
  const analytics = (db: Db) => new AnalyticsService(db, () => now).snapshot();
  assert.deepEqual(await analytics(bulk.store.db), await analytics(rows.store.db));
  // The triggers are back: a new listing of the largest collection's cheapest asset reaches its book.
  const asset = (await bulk.store.db.selectFrom('catalog_assets').select('asset').where('collection_slug', '=', slugOf(0)).orderBy('asset').executeTakeFirstOrThrow()).asset;
  await bulk.store.db
    .insertInto('listings')
    .values(liveRow('new', asset, now))
    .execute();
  const first = (await book(bulk.store.db)).asks[0]!;
  assert.deepEqual([first.price_sats, first.depth, first.listings[0]!.id], [1_000, 1, 'lst_new']);
  // And the unique live outpoint index: the same outpoint listed again is refused.
  await assert.rejects(
    bulk.store.db
      .insertInto('listings')
      .values(liveRow('dup', asset, now))
      .execute(),
  );
});

/** An active listing row on the outpoint f…f:0 (the same for every tag: the unique live outpoint index is what is tested). */
function liveRow(tag: string, asset: string, now: number) {
  return {
    id: `lst_${tag}`,
    operation_id: `op_${tag}`,
    draft_id: `pf_${tag}`,
    seller: 'bc1qnew',
    asset,
    quantity_raw: '1',
    utxo_txid: 'f'.repeat(64),
    utxo_vout: 0,
    utxo_outpoint: `${'f'.repeat(64)}:0`,
    utxo_value_sats: 330,
    price_sats: 1_000,
    state: 'active',
    end_reason: null,
    signed_psbt: null,
    version: 1,
    expires_at: now + 1000,
    created_at: now,
    updated_at: now,
    activated_at: now,
    ended_at: null,
    protocol_subtype: 'plain',
  } as const;
}
