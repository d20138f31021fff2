import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { catalog, ODD_CREDIT } from './fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp({ chain: unreachableChain() });
  await importCatalog(t.ctx.store.db, catalog);
});
after(async () => t.close());

const get = (url: string) => getJson(t.app, url);

/** Follows next_cursor to the end, keeping the query the same; returns every row. */
async function all(path: string, query: string, limit: number): Promise<Record<string, any>[]> {
  const rows: Record<string, any>[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const r = await get(`${path}?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.result.length <= limit);
    assert.equal(r.body.result_count, r.body.result.length);
    rows.push(...r.body.result);
    cursor = r.body.next_cursor;
    if (cursor === null) return rows;
    assert.ok(cursor.length <= 200);
  }
  throw new Error('too many pages');
}

const BY_NAME = ['9lives', ODD_CREDIT, 'anonymous', 'Mondo Pepe', 'Quiet Curator', 'Twin One', 'Twin Two', 'zeta painter', 'Émile Ñ'];

test('sort=name pages across cursors: curated artists and uncurated credits, each once', async () => {
  const rows = await all('/v1/artists', 'sort=name', 2);
  assert.deepEqual(rows.map((r) => r.name), BY_NAME);
  const mondo = rows.find((r) => r.name === 'Mondo Pepe')!;
  assert.deepEqual(mondo, { key: 'mondo-pepe', id: mondo.id, name: 'Mondo Pepe', curated: true, artworks: 4, listed: 0, floor_sats: null });
  assert.equal(typeof mondo.id, 'string');
  const odd = rows.find((r) => r.name === ODD_CREDIT)!;
  assert.deepEqual(odd, { key: `~${encodeURIComponent(ODD_CREDIT)}`, id: null, name: ODD_CREDIT, curated: false, artworks: 3, listed: 0, floor_sats: null });
  assert.equal(rows.find((r) => r.name === 'Quiet Curator')!.artworks, 0);
  // The default sort is name, and the same order comes in one page.
  const one = await get('/v1/artists?limit=100');
  assert.deepEqual(one.body.result.map((r: any) => r.name), BY_NAME);
  assert.equal(one.body.next_cursor, null);
  assert.equal(one.headers['cache-control'], 'public, max-age=30');
});

test('sort=artworks: most artworks first, ties by name; an asset in two collections counts once', async () => {
  const rows = await all('/v1/artists', 'sort=artworks', 3);
  assert.deepEqual(
    rows.map((r) => [r.name, r.artworks]),
    [['Mondo Pepe', 4], [ODD_CREDIT, 3], ['9lives', 2], ['zeta painter', 2], ['anonymous', 1], ['Twin One', 1], ['Twin Two', 1], ['Émile Ñ', 1], ['Quiet Curator', 0]],
  );
});

test('q and letter filters, # for digits, symbols and non A–Z letters', async () => {
  const names = async (query: string) => (await all('/v1/artists', query, 2)).map((r) => r.name);
  assert.deepEqual(await names('q=ANON'), [ODD_CREDIT, 'anonymous']);
  assert.deepEqual(await names('q=on'), [ODD_CREDIT, 'anonymous', 'Mondo Pepe', 'Twin One']);
  assert.deepEqual(await names('q=%C3%89MILE'), ['Émile Ñ'], 'É matches itself, MILE folds to mile');
  assert.deepEqual(await names('q=%C3%A9mile'), [], 'case folding is ASCII only: é does not match É');
  assert.deepEqual(await names('letter=A'), [ODD_CREDIT, 'anonymous']);
  assert.deepEqual(await names('letter=Z'), ['zeta painter']);
  assert.deepEqual(await names('letter=%23'), ['9lives', 'Émile Ñ']);
  assert.deepEqual(await names('letter=T&q=two&sort=artworks'), ['Twin Two']);
  assert.deepEqual(await names('letter=X'), []);
  assert.deepEqual(await names('letter='), BY_NAME);
});

test('bad parameters: 400 invalid_request', async () => {
  for (const q of ['limit=0', 'limit=101', 'limit=x', 'letter=ab', 'letter=a', 'sort=x', `q=${'q'.repeat(201)}`, `cursor=${'c'.repeat(201)}`, 'cursor=garbage']) {
    const r = await get(`/v1/artists?${q}`);
    assert.equal(r.status, 400, q);
    assert.equal(r.body.code, 'invalid_request', q);
    assert.equal(r.headers['cache-control'], 'no-store');
  }
  const long = await get(`/v1/artists/${'x'.repeat(202)}`);
  assert.equal(long.status, 400);
  for (const q of ['limit=0', 'limit=101', 'listed=2', `collection=${'c'.repeat(201)}`]) {
    const r = await get(`/v1/artists/mondo-pepe/assets?${q}`);
    assert.equal(r.status, 400, q);
    assert.equal(r.body.code, 'invalid_request', q);
  }
});

test('a cursor replayed with another filter or sort is 400', async () => {
  const first = await get('/v1/artists?sort=name&limit=2');
  const cursor = encodeURIComponent(first.body.next_cursor);
  assert.equal((await get(`/v1/artists?sort=name&limit=2&cursor=${cursor}`)).status, 200);
  assert.equal((await get(`/v1/artists?limit=5&cursor=${cursor}`)).status, 200, 'limit may change; the default sort is name');
  for (const other of ['sort=artworks', 'sort=name&q=a', 'sort=name&letter=A']) {
    const r = await get(`/v1/artists?${other}&limit=2&cursor=${cursor}`);
    assert.equal(r.status, 400, other);
    assert.equal(r.body.code, 'invalid_request');
  }
  const assets = await get('/v1/artists/mondo-pepe/assets?limit=1');
  const ac = encodeURIComponent(assets.body.next_cursor);
  assert.equal((await get(`/v1/artists/mondo-pepe/assets?limit=1&cursor=${ac}`)).status, 200);
  for (const other of ['listed=1', 'q=PEPE', 'collection=alpha']) {
    assert.equal((await get(`/v1/artists/mondo-pepe/assets?limit=1&${other}&cursor=${ac}`)).status, 400, other);
  }
  assert.equal((await get(`/v1/artists/zeta-painter/assets?limit=1&cursor=${ac}`)).status, 400, 'another artist');
  assert.equal((await get(`/v1/artists?cursor=${ac}`)).status, 400, 'another route');
});

test('artist detail by slug: counts, collections, curated profile', async () => {
  const r = await get('/v1/artists/mondo-pepe');
  assert.equal(r.status, 200);
  assert.equal(r.headers['cache-control'], 'public, max-age=30');
  const a = r.body.result;
  assert.equal(a.key, 'mondo-pepe');
  assert.equal(a.name, 'Mondo Pepe');
  assert.equal(a.assets, 4);
  assert.equal(a.listed, 0);
  assert.equal(a.floor_sats, null);
  assert.equal(a.curated, true);
  assert.equal(a.bio, 'Early contributor.');
  assert.equal(a.website, 'https://example.org/mondo');
  assert.equal(a.x_url, null);
  assert.equal(a.version, 1);
  assert.deepEqual(a.collections, [
    { slug: 'alpha', name: 'Alpha Cards', assets: 2 },
    { slug: 'beta', name: 'Beta Cards', assets: 3 },
  ]);
  const empty = await get('/v1/artists/quiet-curator');
  assert.equal(empty.body.result.assets, 0);
  assert.deepEqual(empty.body.result.collections, []);
});

test('~ credit keys round-trip from the list to detail and assets', async () => {
  const rows = await all('/v1/artists', 'sort=name', 100);
  for (const row of rows) {
    const d = await get(`/v1/artists/${row.key}`);
    assert.equal(d.status, 200, row.key);
    assert.equal(d.body.result.key, row.key);
    assert.equal(d.body.result.name, row.name);
    assert.equal(d.body.result.assets, row.artworks);
    assert.equal(d.body.result.id, row.id);
  }
  const key = `~${encodeURIComponent(ODD_CREDIT)}`;
  const odd = (await get(`/v1/artists/${key}`)).body.result;
  assert.deepEqual(
    { ...odd, collections: odd.collections.map((c: any) => c.slug) },
    { name: ODD_CREDIT, key, assets: 3, listed: 0, floor_sats: null, collections: ['alpha', 'beta'], id: null, curated: false, bio: null, website: null, x_url: null, version: null },
  );
  // A client that encodes the key once more reaches the same credit.
  assert.equal((await get(`/v1/artists/${encodeURIComponent(key)}`)).body.result.key, key);
  const assets = await all(`/v1/artists/${key}/assets`, '', 2);
  assert.deepEqual(assets.map((a) => a.asset), ['NONCOA', 'NONCOB', 'NONCOC']);
  // A curated artist is reachable by its exact name as a credit key too, and answers with its slug key.
  assert.equal((await get('/v1/artists/~Mondo%2520Pepe')).body.result.key, 'mondo-pepe');
});

test('ambiguous slug and unknown keys: 404 not_found', async () => {
  for (const key of ['twin', 'nobody', '~Nobody', '~', '~Twin', 'mondo%20pepe']) {
    const r = await get(`/v1/artists/${key}`);
    assert.equal(r.status, 404, key);
    assert.equal(r.body.code, 'not_found', key);
    assert.equal((await get(`/v1/artists/${key}/assets`)).status, 404, key);
  }
  const twins = (await get('/v1/artists?letter=T')).body.result;
  assert.deepEqual(twins.map((r: any) => r.key), ['~Twin%20One', '~Twin%20Two']);
  const one = await get('/v1/artists/~Twin%2520One');
  assert.equal(one.status, 200);
  assert.equal(one.body.result.curated, true);
  assert.equal(one.body.result.key, '~Twin%20One');
});

test('artist assets: one row per asset (primary membership), sorted by name, filters over the whole catalogue', async () => {
  const rows = await all('/v1/artists/mondo-pepe/assets', '', 3);
  assert.deepEqual(rows.map((r) => r.asset), ['PEPEFOUR', 'PEPEONE', 'PEPETHREE', 'PEPETWO']);
  assert.deepEqual(rows[1], {
    asset: 'PEPEONE',
    collection: 'alpha',
    also_in: ['beta'],
    max_supply_units: 300,
    issued_year: 2016,
    series: 1,
    media_kind: 'image',
    protocol_subtype: null,
    listed: 0,
    floor_sats: null,
  });
  const names = async (query: string) => (await all('/v1/artists/mondo-pepe/assets', query, 1)).map((r) => r.asset);
  assert.deepEqual(await names('collection=beta'), ['PEPEFOUR', 'PEPEONE', 'PEPETHREE']);
  assert.deepEqual(await names('q=t'), ['PEPETHREE', 'PEPETWO']);
  assert.deepEqual(await names('q=t&collection=alpha'), ['PEPETWO']);
  assert.deepEqual(await names('collection=nowhere'), []);
  assert.deepEqual(await names('listed=1'), []);
  assert.deepEqual(await names('listed=0'), ['PEPEFOUR', 'PEPEONE', 'PEPETHREE', 'PEPETWO']);
  const first = await get('/v1/artists/mondo-pepe/assets');
  assert.equal(first.body.result.length, 4, 'default limit 40');
  assert.equal(first.headers['cache-control'], 'public, max-age=30');
});

test('OpenAPI documents the artist routes', async () => {
  const doc = (await get('/v1/openapi.json')).body;
  for (const p of ['/v1/artists', '/v1/artists/{key}', '/v1/artists/{key}/assets']) {
    assert.ok(doc.paths[p]?.get, p);
    assert.match(doc.paths[p].get.description, /verify|cursor|listing/);
    assert.ok(doc.paths[p].get.responses['400'], p);
  }
  assert.match(doc.paths['/v1/artists/{key}'].get.description, /do not verify artist identity/);
  assert.ok(doc.paths['/v1/artists/{key}'].get.responses['404']);
});
