/** Offer targets over stored rows: the filters and their refusals, one-unit listings, order, bounds, counts. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { importCatalog, type CatalogFile } from '../../src/modules/market/catalog-import.js';
import { nowSeconds } from '../../src/clock.js';
import { insertListing } from './rows.js';

let t: TestApp;
let now: number;
const ids: Record<string, string> = {};

/** 600 members of `many` (more than one 500-asset chunk): series 1 except every tenth. */
const many = Array.from({ length: 600 }, (_, i) => ({ asset: `MANY${String.fromCharCode(65 + Math.floor(i / 26 / 26) % 26, 65 + Math.floor(i / 26) % 26, 65 + (i % 26))}`, collection: 'many', series: i % 10 ? 1 : 2 }));

const catalog: CatalogFile = {
  collections: [{ slug: 'cards', name: 'Cards' }, { slug: 'many', name: 'Many' }],
  artists: [],
  assets: [
    { asset: 'CARDA', collection: 'cards', artist: 'Mondo Pepe', issued_year: 2016, series: 1, max_supply_units: 100 },
    { asset: 'CARDB', collection: 'cards', artist: ' mondo pepe', issued_year: 2016, series: 2, max_supply_units: 300 },
    { asset: 'CARDC', collection: 'cards', artist: 'Other', issued_year: 2017, series: 1, max_supply_units: 1000 },
    { asset: 'CARDD', collection: 'cards', artist: 'Mondo Pepe', issued_year: 2017 },
    { asset: 'CARDE', collection: 'cards', artist: 'Mondo Pepe', issued_year: 2016, series: 1, max_supply_units: 50 },
    { asset: 'CARDF', collection: 'cards', issued_year: 2016, max_supply_units: 100 },
    ...many,
  ],
};

before(async () => {
  t = await testApp({ chain: unreachableChain() });
  await importCatalog(t.ctx.store.db, catalog);
  now = nowSeconds(t.clock);
  const db = t.ctx.store.db;
  // Divisibility as the balance view records it; CARDF has not been read yet.
  const known = [['CARDA', 0], ['CARDB', 1], ['CARDC', 0], ['CARDD', 0], ['CARDE', 0], ...many.map((a) => [a.asset, 0] as const)] as const;
  for (let i = 0; i < known.length; i += 200) {
    await db.insertInto('cp_assets').values(known.slice(i, i + 200).map(([asset, divisible]) => ({ asset, asset_longname: null, divisible, refreshed_height: 1, refreshed_at: 0, stale: 0 }))).execute();
  }
  ids.a = await insertListing(db, { asset: 'CARDA', price_sats: 9_000, now });
  ids.aTie = await insertListing(db, { asset: 'CARDA', price_sats: 9_000, now, created_at: now - 5 });
  ids.b = await insertListing(db, { asset: 'CARDB', price_sats: 7_000, now, quantity_raw: '100000000' });
  await insertListing(db, { asset: 'CARDB', price_sats: 6_000, now, quantity_raw: '1' }); // a hundred-millionth of a unit
  await insertListing(db, { asset: 'CARDC', price_sats: 6_500, now, quantity_raw: '2' }); // two units
  ids.c = await insertListing(db, { asset: 'CARDC', price_sats: 12_000, now });
  ids.d = await insertListing(db, { asset: 'CARDD', price_sats: 8_000, now });
  await insertListing(db, { asset: 'CARDE', price_sats: 5_000, now, expires_at: now - 1 });
  for (const state of ['pending', 'reserved', 'sold', 'ended'] as const) await insertListing(db, { asset: 'CARDE', price_sats: 5_000, now, state });
  await insertListing(db, { asset: 'CARDF', price_sats: 5_000, now }); // divisibility unknown
  // In `many`: the cheapest matches of series 1 sit in the second chunk of assets.
  ids.m599 = await insertListing(db, { asset: many[599]!.asset, price_sats: 5_100, now });
  ids.m1 = await insertListing(db, { asset: many[1]!.asset, price_sats: 5_200, now });
  ids.m550 = await insertListing(db, { asset: many[550]!.asset, price_sats: 5_000, now }); // series 2
  ids.m598 = await insertListing(db, { asset: many[598]!.asset, price_sats: 5_150, now });
});
after(async () => t.close());

const get = async (q: string, slug = 'cards') => {
  const r = await t.app.inject({ method: 'GET', url: `/v1/collections/${slug}/offer-targets${q}` });
  return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, any>, headers: r.headers };
};
const targets = async (q: string, slug = 'cards') => {
  const r = await get(q, slug);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return [r.body.result.map((l: any) => l.id), r.body.result_count, r.body.matching_assets];
};

test('no filter: public fillable one-unit listings of the collection, cheapest first (price, then age, then id)', async () => {
  const r = await get('');
  assert.equal(r.headers['cache-control'], 'public, max-age=30');
  assert.deepEqual([r.body.result.map((l: any) => l.id), r.body.result_count, r.body.matching_assets], [[ids.b, ids.d, ids.aTie, ids.a, ids.c], 5, 6]);
  assert.deepEqual(Object.keys(r.body.result[0]).sort(), ['asset', 'asset_longname', 'created_at', 'id', 'media_kind', 'price_sats', 'protocol_subtype', 'quantity_raw', 'seller', 'utxo_txid', 'utxo_vout'].sort(), 'no expires_at');
  assert.equal(r.body.result[0].quantity_raw, '100000000');
});

test('filters combine; matching_assets counts the catalogue assets reached, listed or not', async () => {
  assert.deepEqual(await targets('?artist=MONDO%20PEPE%20%20'), [[ids.b, ids.d, ids.aTie, ids.a], 4, 4]);
  assert.deepEqual(await targets('?artist=mondo'), [[], 0, 0], 'no substring');
  assert.deepEqual(await targets('?issued_year=2016'), [[ids.b, ids.aTie, ids.a], 3, 4]);
  assert.deepEqual(await targets('?issued_year=2016&series=1'), [[ids.aTie, ids.a], 2, 2]);
  assert.deepEqual(await targets('?max_supply_units=100'), [[ids.aTie, ids.a], 2, 3], 'A (100), E (50), F (100); D has no known supply');
  assert.deepEqual(await targets('?min_supply_units=300'), [[ids.b, ids.c], 2, 2]);
  assert.deepEqual(await targets('?min_supply_units=100&max_supply_units=100'), [[ids.aTie, ids.a], 2, 2]);
  assert.deepEqual(await targets('?artist=%20%20'), [[ids.b, ids.d, ids.aTie, ids.a, ids.c], 5, 6], 'a blank artist is no filter');
  assert.deepEqual(await targets('?series=9'), [[], 0, 0]);
});

test('limit bounds the rows, not the count of matching assets', async () => {
  assert.deepEqual(await targets('?limit=2'), [[ids.b, ids.d], 2, 6]);
  assert.deepEqual((await targets('', 'many'))[0], [ids.m550, ids.m599, ids.m598, ids.m1]);
  assert.deepEqual(await targets('?limit=1&series=1', 'many'), [[ids.m599], 1, 540]);
});

test('many matching assets (several chunks): the global cheapest come first', async () => {
  assert.deepEqual(await targets('?series=1', 'many'), [[ids.m599, ids.m598, ids.m1], 3, 540]);
  assert.deepEqual(await targets('?series=2', 'many'), [[ids.m550], 1, 60]);
});

test('bad filters are 400 invalid_request naming the field', async () => {
  const cases: Array<[string, string]> = [
    ['?max_supply_units=0', 'max_supply_units'],
    ['?min_supply_units=abc', 'min_supply_units'],
    ['?issued_year=20.5', 'issued_year'],
    ['?series=-1', 'series'],
    [`?artist=${'a'.repeat(201)}`, 'artist'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?min_supply_units=10&max_supply_units=9', 'min_supply_units'],
  ];
  for (const [q, field] of cases) {
    const r = await get(q);
    assert.deepEqual([r.status, r.body.code], [400, 'invalid_request'], q);
    assert.match(String(r.body.field ?? r.body.error), new RegExp(field), q);
  }
});

test('unknown collection is 404', async () => {
  const r = await get('', 'nowhere');
  assert.deepEqual([r.status, r.body.code], [404, 'not_found']);
});

test('limit defaults to 8', async () => {
  t.clock.advance(31_000); // past the cache
  for (let i = 0; i < 6; i++) await insertListing(t.ctx.store.db, { asset: many[i * 10 + 3]!.asset, price_sats: 20_000 + i, now });
  const [rows, count, matching] = await targets('', 'many');
  assert.deepEqual([rows.length, count, matching], [8, 8, 600]);
  assert.deepEqual(rows.slice(0, 4), [ids.m550, ids.m599, ids.m598, ids.m1]);
});

test('uncached reads share the 300-per-minute budget; cache hits do not spend it (429 rate_limited)', async () => {
  t.clock.advance(61_000); // a fresh window, past the cache
  const from = (q: string) => t.app.inject({ method: 'GET', url: `/v1/collections/cards/offer-targets${q}`, remoteAddress: '10.99.0.7' });
  for (let i = 0; i < 300; i++) assert.equal((await from(`?series=${i}`)).statusCode, 200, `request ${i}`);
  const hit = await from('?series=0');
  assert.deepEqual([hit.statusCode, hit.headers['x-cache']], [200, 'hit']);
  const over = await from('?series=300');
  assert.equal(over.statusCode, 429);
  const body = JSON.parse(over.body);
  assert.equal(body.code, 'rate_limited');
  assert.ok(body.retry_after_seconds >= 1);
});
