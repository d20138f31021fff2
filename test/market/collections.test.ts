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

test('collections: catalogue order, paged with cursors', async () => {
  const first = await get('/v1/collections?limit=2');
  assert.equal(first.status, 200);
  assert.equal(first.headers['cache-control'], 'public, max-age=30');
  assert.equal(first.body.result_count, 2);
  assert.deepEqual(first.body.result, [
    { slug: 'alpha', name: 'Alpha Cards', description: 'First.', assets: 6, listed: 0, floor_sats: null },
    { slug: 'beta', name: 'Beta Cards', description: null, assets: 5, listed: 0, floor_sats: null },
  ]);
  const second = await get(`/v1/collections?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
  assert.equal(second.status, 200);
  assert.deepEqual(second.body.result.map((c: any) => [c.slug, c.assets]), [['gamma', 6]]);
  assert.equal(second.body.next_cursor, null);
  const whole = await get('/v1/collections');
  assert.deepEqual(whole.body.result.map((c: any) => c.slug), ['alpha', 'beta', 'gamma']);
  assert.equal(whole.body.next_cursor, null);
});

test('collections: bad limit or cursor is 400', async () => {
  for (const q of ['limit=0', 'limit=101', 'cursor=nonsense', `cursor=${'x'.repeat(401)}`]) {
    const r = await get(`/v1/collections?${q}`);
    assert.equal(r.status, 400, q);
    assert.equal(r.body.code, 'invalid_request');
  }
  const artists = await get('/v1/artists?limit=1');
  const foreign = await get(`/v1/collections?cursor=${encodeURIComponent(artists.body.next_cursor)}`);
  assert.equal(foreign.status, 400, 'a cursor of another route');
});

test('collection detail: figures and trait summary', async () => {
  const r = await get('/v1/collections/beta');
  assert.equal(r.status, 200);
  assert.equal(r.headers['cache-control'], 'public, max-age=30');
  assert.deepEqual(r.body.result, {
    slug: 'beta',
    name: 'Beta Cards',
    description: null,
    assets: 5,
    listed: 0,
    floor_sats: null,
    traits: {
      issued_year: [{ value: 2016, assets: 1 }, { value: 2017, assets: 2 }, { value: 2020, assets: 1 }],
      series: [{ value: 1, assets: 1 }, { value: 3, assets: 2 }],
      artist: [{ value: ODD_CREDIT, assets: 1 }, { value: 'Mondo Pepe', assets: 3 }, { value: 'zeta painter', assets: 1 }],
      media_kind: [{ value: 'html', assets: 1 }, { value: 'image', assets: 2 }, { value: 'svg', assets: 1 }, { value: 'video', assets: 1 }],
    },
  });
  const gamma = (await get('/v1/collections/gamma')).body.result;
  assert.deepEqual(gamma.traits.artist.map((a: any) => a.value), ['9lives', 'anonymous', 'Twin Two', 'zeta painter', 'Émile Ñ']);
  assert.deepEqual(gamma.traits.issued_year, []);
});

test('collection detail: unknown slug is 404, an over-long one 400', async () => {
  const r = await get('/v1/collections/nowhere');
  assert.equal(r.status, 404);
  assert.equal(r.body.code, 'not_found');
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.equal((await get(`/v1/collections/${'s'.repeat(201)}`)).status, 400);
});

test('OpenAPI documents the collection routes', async () => {
  const doc = (await get('/v1/openapi.json')).body;
  assert.match(doc.paths['/v1/collections'].get.description, /next_cursor/);
  assert.ok(doc.paths['/v1/collections/{slug}'].get.responses['200']);
  assert.ok(doc.paths['/v1/collections/{slug}'].get.responses['4XX'] ?? doc.paths['/v1/collections/{slug}'].get.responses['4xx']);
});
