/** The collection order book over stored rows: exclusions, ordering, bounds, fills, errors and caching. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { nowSeconds } from '../../src/clock.js';
import { BOOK_FILLS, BOOK_LEVELS, BOOK_LISTINGS_PER_LEVEL, BookService } from '../../src/modules/market/book-service.js';
import { BookStore } from '../../src/modules/market/book-store.js';
import { BUYER, SELLER, insertFill, insertListing } from './rows.js';

let t: TestApp;
let now: number;
const ids: Record<string, string> = {};

before(async () => {
  t = await testApp({ chain: unreachableChain() });
  await importCatalog(t.ctx.store.db, {
    collections: [{ slug: 'main', name: 'Main' }, { slug: 'side', name: 'Side' }, { slug: 'deep', name: 'Deep' }, { slug: 'edge', name: 'Edge' }, { slug: 'empty', name: 'Empty' }],
    artists: [],
    assets: [
      { asset: 'MAINONE', collection: 'main', also_in: ['side'], media_kind: 'image', protocol_subtype: 'stamp' },
      { asset: 'MAINTWO', collection: 'main', media_kind: 'animation' },
      { asset: 'MAINTHREE', collection: 'main' },
      { asset: 'SIDEONLY', collection: 'side', media_kind: 'video' },
      { asset: 'DEEPCARD', collection: 'deep' },
      { asset: 'EDGECARD', collection: 'edge' },
    ],
  });
  now = nowSeconds(t.clock);
  const db = t.ctx.store.db;
  ids.twoOld = await insertListing(db, { asset: 'MAINTWO', price_sats: 10_000, now, created_at: now - 100 });
  ids.oneNew = await insertListing(db, { asset: 'MAINONE', price_sats: 10_000, now, created_at: now - 10, expires_at: now + 3600 });
  ids.oneFloor = await insertListing(db, { asset: 'MAINONE', price_sats: 8_000, now });
  await insertListing(db, { asset: 'MAINTHREE', price_sats: 8_000, now, expires_at: now }); // expires now: not fillable
  for (const state of ['pending', 'reserved', 'sold', 'ended'] as const) await insertListing(db, { asset: 'MAINTHREE', price_sats: 7_000, now, state });
  ids.sideOnly = await insertListing(db, { asset: 'SIDEONLY', price_sats: 5_000, now });
  await insertListing(db, { asset: 'NOTCATALOGUED', price_sats: 5_000, now });
});
after(async () => t.close());

const get = (url: string) => getJson(t.app, url);
const shape = (b: any) => b.asks.map((a: any) => [a.price_sats, a.depth, a.listings.map((l: any) => l.id)]);

test('asks: public fillable listings of member assets only, cheapest level first, oldest first within a level', async () => {
  const r = await get('/v1/collections/main/book');
  assert.equal(r.status, 200);
  assert.equal(r.headers['cache-control'], 'public, max-age=30');
  assert.deepEqual(shape(r.body.result), [
    [8_000, 1, [ids.oneFloor]],
    [10_000, 2, [ids.twoOld, ids.oneNew]],
  ]);
  const row = r.body.result.asks[1].listings[1];
  assert.deepEqual(Object.keys(row).sort(), ['asset', 'asset_longname', 'created_at', 'expires_at', 'id', 'media_kind', 'price_sats', 'protocol_subtype', 'quantity_raw', 'seller', 'utxo_txid', 'utxo_vout'].sort());
  assert.deepEqual([row.asset, row.seller, row.quantity_raw, row.media_kind, row.protocol_subtype, row.asset_longname, row.expires_at, row.created_at], ['MAINONE', SELLER, '1', 'image', 'plain', null, now + 3600, now - 10]);
  assert.match(row.utxo_txid, /^[0-9a-f]{64}$/);
  assert.equal(r.body.result.listings_truncated, false);
  assert.doesNotMatch(JSON.stringify(r.body), /70736274ff/, 'the signed half never leaves the store');
  const again = await get('/v1/collections/main/book');
  assert.equal(again.headers['x-cache'], 'hit');
});

test('a secondary membership puts the asset in that book too', async () => {
  assert.deepEqual(shape((await get('/v1/collections/side/book')).body.result), [
    [5_000, 1, [ids.sideOnly]],
    [8_000, 1, [ids.oneFloor]],
    [10_000, 1, [ids.oneNew]],
  ]);
});

test('bounds: at most 50 levels and 20 listings per level; depth counts them all; listings_truncated says so', async () => {
  const db = t.ctx.store.db;
  const floor: string[] = [];
  for (let i = 0; i < BOOK_LISTINGS_PER_LEVEL + 1; i++) floor.push(await insertListing(db, { asset: 'DEEPCARD', price_sats: 6_000, now, created_at: now - 1000 + i }));
  for (let i = 1; i <= BOOK_LEVELS + 1; i++) await insertListing(db, { asset: 'DEEPCARD', price_sats: 6_000 + i * 100, now });
  const b = (await get('/v1/collections/deep/book')).body.result;
  assert.equal(b.asks.length, BOOK_LEVELS);
  assert.deepEqual([b.asks[0].price_sats, b.asks[0].depth, b.asks[0].listings.length], [6_000, BOOK_LISTINGS_PER_LEVEL + 1, BOOK_LISTINGS_PER_LEVEL]);
  assert.deepEqual(b.asks[0].listings.map((l: any) => l.id), floor.slice(0, BOOK_LISTINGS_PER_LEVEL), 'the oldest 20');
  assert.equal(b.asks.at(-1).price_sats, 6_000 + (BOOK_LEVELS - 1) * 100);
  assert.equal(b.listings_truncated, true);

  // Exactly at both bounds is not truncated.
  for (let i = 0; i < BOOK_LISTINGS_PER_LEVEL; i++) await insertListing(db, { asset: 'EDGECARD', price_sats: 9_000, now });
  for (let i = 1; i < BOOK_LEVELS; i++) await insertListing(db, { asset: 'EDGECARD', price_sats: 9_000 + i, now });
  const edge = (await get('/v1/collections/edge/book')).body.result;
  assert.deepEqual([edge.asks.length, edge.asks[0].depth, edge.asks[0].listings.length, edge.listings_truncated], [BOOK_LEVELS, BOOK_LISTINGS_PER_LEVEL, BOOK_LISTINGS_PER_LEVEL, false]);
});

test('fills: the 20 most recent non-dropped fills of member assets, newest first, in the fill row shape', async () => {
  const db = t.ctx.store.db;
  const made = [];
  for (let i = 0; i < BOOK_FILLS + 2; i++) made.push(await insertFill(db, { asset: i % 2 ? 'MAINONE' : 'MAINTWO', price_sats: 10_000 + i, broadcast_at: now - 1000 + i, state: i === BOOK_FILLS + 1 ? 'pending' : 'confirmed' }));
  await insertFill(db, { asset: 'MAINONE', price_sats: 99_000, broadcast_at: now, state: 'dropped' });
  await insertFill(db, { asset: 'SIDEONLY', price_sats: 98_000, broadcast_at: now });
  const b = (await get('/v1/collections/empty/book')).body.result;
  assert.deepEqual([b.asks, b.fills], [[], []], 'an empty collection has an empty book');
  t.clock.advance(31_000); // past the cache
  const fills = (await get('/v1/collections/main/book')).body.result.fills;
  assert.equal(fills.length, BOOK_FILLS);
  assert.deepEqual(fills.map((f: any) => f.txid), made.slice(2).reverse().map((m) => m.txid));
  const pending = fills[0];
  assert.deepEqual(pending, {
    txid: made.at(-1)!.txid,
    kind: 'listing',
    ref_id: made.at(-1)!.ref_id,
    asset: 'MAINONE',
    asset_longname: null,
    seller: SELLER,
    buyer: BUYER,
    price_sats: 10_000 + BOOK_FILLS + 1,
    platform_fee_sats: Math.floor((10_000 + BOOK_FILLS + 1) / 100),
    delivery_mode: 'detached',
    broadcast_at: now - 1000 + BOOK_FILLS + 1,
    confirmed_at: null,
    block_index: null,
  });
  assert.deepEqual([fills[1].confirmed_at, fills[1].block_index], [now - 1000 + BOOK_FILLS + 600, 200]);
});

/** The levels as a plain group-by over listings and the catalogue computes them (the reference). */
async function referenceLevels(slug: string, at: number) {
  const rows = await t.ctx.store.db
    .selectFrom('listings as l')
    .innerJoin('catalog_assets as ca', (j) => j.onRef('ca.asset', '=', 'l.asset').on('ca.collection_slug', '=', slug))
    .where('l.state', '=', 'active')
    .where('l.expires_at', '>', at)
    .select('l.price_sats')
    .select((eb) => eb.fn.countAll().as('depth'))
    .groupBy('l.price_sats')
    .orderBy('l.price_sats')
    .limit(BOOK_LEVELS)
    .execute();
  return rows.map((r) => ({ price_sats: Number(r.price_sats), depth: Number(r.depth) }));
}

test('the levels kept by the store triggers equal a group-by over the listings, through every kind of write', async () => {
  const store = new BookStore(t.ctx.store.db);
  // Both listing plans (the kept rows of book_ask_top, per-level ranges of book_asks) each time.
  const ranged = new BookService(store, () => nowSeconds(t.clock));
  const perLevel = new BookService(store, () => nowSeconds(t.clock), false);
  const db = t.ctx.store.db;
  const check = async (why: string) => {
    const at = nowSeconds(t.clock);
    for (const slug of ['main', 'side', 'deep', 'edge', 'empty']) {
      assert.deepEqual((await store.levels(slug, at, BOOK_LEVELS)), await referenceLevels(slug, at), `${why}: ${slug}`);
      const b = await ranged.book(slug);
      assert.deepEqual(b.asks.map((a) => [a.price_sats, a.depth]), (await referenceLevels(slug, at)).map((l) => [l.price_sats, l.depth]), `${why}: ${slug} book`);
      assert.deepEqual(await perLevel.book(slug), b, `${why}: ${slug} plans agree`);
    }
  };
  await check('as seeded');
  const l = await insertListing(db, { asset: 'MAINTWO', price_sats: 12_345, now, state: 'pending' });
  await check('a pending listing');
  await db.updateTable('listings').set({ state: 'active' }).where('id', '=', l).execute();
  await check('activated');
  await db.updateTable('listings').set({ price_sats: 8_000, version: 2 }).where('id', '=', l).execute();
  await check('repriced onto another level');
  await db.updateTable('listings').set({ state: 'reserved' }).where('id', '=', l).execute();
  await check('reserved');
  await db.updateTable('listings').set({ state: 'active' }).where('id', '=', l).execute();
  await db.updateTable('listings').set({ state: 'ended' }).where('id', '=', ids.oneNew!).execute();
  await check('released and ended');
  // Catalogue membership moves: an asset leaves a collection, joins another, and is renamed.
  await db.deleteFrom('catalog_assets').where('asset', '=', 'MAINONE').where('collection_slug', '=', 'side').execute();
  await check('a membership removed');
  await db.insertInto('catalog_assets').values({ asset: 'MAINONE', collection_slug: 'empty', is_primary: 0, artist: null, max_supply_units: null, issued_year: null, series: null, media_kind: null, protocol_subtype: null }).execute();
  await check('a membership added');
  await db.updateTable('catalog_assets').set({ collection_slug: 'side' }).where('asset', '=', 'MAINONE').where('collection_slug', '=', 'empty').execute();
  await check('a membership moved');
  await db.deleteFrom('listings').where('id', '=', l).execute();
  await check('a listing deleted');
  // A level deeper than its kept rows (book_ask_top): its first entries leave and arrive.
  const deepFirst = (await perLevel.book('deep')).asks[0]!.listings;
  await db.updateTable('listings').set({ state: 'reserved' }).where('id', '=', deepFirst[0]!.id).execute();
  await check('the oldest of a deep level reserved (the next one moves up)');
  await insertListing(db, { asset: 'DEEPCARD', price_sats: 6_000, now, created_at: now - 5_000 });
  await check('an older listing enters a full level');
  // Adds, ends and a re-price inside one level in one transaction (PostgreSQL keeps the rows at commit).
  await db.transaction().execute(async (tx) => {
    const gone = await insertListing(tx, { asset: 'DEEPCARD', price_sats: 6_000, now, created_at: now - 6_000 });
    await tx.updateTable('listings').set({ state: 'ended' }).where('id', '=', gone).execute();
    await insertListing(tx, { asset: 'DEEPCARD', price_sats: 6_000, now, created_at: now - 4_000, expires_at: now + 60 });
    await tx.updateTable('listings').set({ state: 'ended' }).where('id', '=', deepFirst[1]!.id).execute();
    await tx.updateTable('listings').set({ price_sats: 6_100 }).where('id', '=', deepFirst[2]!.id).execute();
    for (let i = 0; i < 3; i++) await insertListing(tx, { asset: 'DEEPCARD', price_sats: 6_000, now, created_at: now + i });
  });
  await check('several changes to one level in one transaction');
  t.clock.set((now + 120) * 1000);
  await check('a kept row expired (that level is read from book_asks)');
  t.clock.set(now * 1000);
  // The kept rows follow the balance view and the catalogue.
  await db.insertInto('cp_assets').values({ asset: 'DEEPCARD', asset_longname: 'DEEPCARD.longname', divisible: 0, refreshed_height: 0, refreshed_at: 0, stale: 0 }).execute();
  assert.equal((await ranged.book('deep')).asks[0]!.listings[0]!.asset_longname, 'DEEPCARD.longname');
  await check('a longname read');
  await db.updateTable('catalog_assets').set({ media_kind: 'video', protocol_subtype: 'stamp' }).where('asset', '=', 'DEEPCARD').execute();
  await check('a catalogue entry edited');
  await db.deleteFrom('cp_assets').where('asset', '=', 'DEEPCARD').execute();
  await check('a longname gone');
  // Writers racing on one level (on PostgreSQL the upkeep runs at each commit, one at a time).
  await Promise.all(
    Array.from({ length: 8 }, (_, k) =>
      db.transaction().execute(async (tx) => {
        for (let i = 0; i < 3; i++) await insertListing(tx, { asset: 'DEEPCARD', price_sats: 6_000, now, created_at: now - 7_000 + k * 10 + i });
        const kth = await tx.selectFrom('listings').select('id').where('asset', '=', 'DEEPCARD').where('state', '=', 'active').where('price_sats', '=', 6_000).orderBy('created_at').orderBy('id').limit(1).offset(k).executeTakeFirst();
        await tx.updateTable('listings').set({ state: 'ended' }).where('id', '=', kth!.id).where('state', '=', 'active').execute();
      }),
    ),
  );
  await check('concurrent writers on one level');
  // Time alone moves a listing out (expiry is read at read time).
  t.clock.set((now + 3600) * 1000);
  await check('past an expiry');
  t.clock.set(now * 1000);
  await db.updateTable('listings').set({ state: 'active' }).where('id', '=', ids.oneNew!).execute();
  await db.insertInto('catalog_assets').values({ asset: 'MAINONE', collection_slug: 'empty', is_primary: 0, artist: null, max_supply_units: null, issued_year: null, series: null, media_kind: null, protocol_subtype: null }).execute();
  await db.deleteFrom('catalog_assets').where('asset', '=', 'MAINONE').where('collection_slug', '=', 'empty').execute();
  await check('restored');
});

test('expiry is read against the clock: a listing past expires_at leaves the book', async () => {
  t.clock.set((now + 3600) * 1000); // MAINONE@10000 expires at now + 3600
  assert.deepEqual(shape((await get('/v1/collections/main/book')).body.result), [
    [8_000, 1, [ids.oneFloor]],
    [10_000, 1, [ids.twoOld]],
  ]);
});

test('unknown slug is 404 (not cached), an over-long slug 400', async () => {
  const r = await get('/v1/collections/nowhere/book');
  assert.deepEqual([r.status, r.body.code], [404, 'not_found']);
  assert.equal(r.headers['cache-control'], 'no-store');
  const long = await get(`/v1/collections/${'s'.repeat(201)}/book`);
  assert.deepEqual([long.status, long.body.code], [400, 'invalid_request']);
});

test('OpenAPI documents the market reads and the choices the spec leaves open', async () => {
  const doc = (await get('/v1/openapi.json')).body;
  const op = (path: string) => doc.paths[path].get;
  assert.match(op('/v1/collections/{slug}/book').description, /at most 50 price levels and 20 listings per level/);
  assert.match(op('/v1/collections/{slug}/offer-targets').description, /100000000 raw/);
  assert.match(op('/v1/collections/{slug}/holders').description, /clamped to 50/);
  assert.match(op('/v1/analytics').description, /zero-filled/);
  for (const path of ['/v1/collections/{slug}/book', '/v1/collections/{slug}/offer-targets', '/v1/collections/{slug}/holders']) {
    assert.ok(op(path).responses['404'], path);
    assert.ok(op(path).responses['400'], path);
  }
});
