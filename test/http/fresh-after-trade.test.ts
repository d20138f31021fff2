/**
 * Fresh reads after a trade: a state change the event log records ends the cached public reads it
 * touches at once (src/http/cache-generation.ts), in front of the framework (the door, over a real
 * socket) and inside it (app.inject); the edge lifetime in Cache-Control stays as it was; a
 * `Cache-Control: no-cache` request is read from the store. No /devnet/sync here: it clears the
 * cache, which would hide what is tested.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller, type LiveListing, type Seller } from '../helpers/listing.js';
import { complete, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';

let m: Market;
let base = '';
let seller: Seller;
const listings: LiveListing[] = [];

before(async () => {
  m = await openMarket();
  seller = await newSeller(m, 'p2wpkh', 'fresh-seller', 3);
  await importCatalog(m.ctx.store.db, {
    collections: [{ slug: 'fresh', name: 'Fresh' }],
    artists: [],
    assets: [{ asset: seller.asset, collection: 'fresh', issued_year: 2016, max_supply_units: 3 }],
  });
  await m.sync();
  for (const price of [20_000, 25_000, 30_000]) listings.push(await listUnit(m, seller, price));
  await m.mine();
  await m.sync();
  await m.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(m.app.server.address() as AddressInfo).port}`;
});
after(async () => m.close());

const bookIds = (b: any): string[] => b.result.asks.flatMap((a: any) => a.listings.map((l: any) => l.id));
const get = async (path: string, headers: Record<string, string> = {}) => {
  const r = await fetch(base + path, { headers });
  return { cache: r.headers.get('x-cache'), cc: r.headers.get('cache-control'), body: (await r.json()) as any };
};

/** Reads until `ok` holds or `ms` pass (PostgreSQL delivers NOTIFY asynchronously); returns the last read. */
async function until(path: string, ok: (body: any) => boolean, ms = 2_000) {
  const end = Date.now() + ms;
  for (;;) {
    const r = await get(path);
    if (ok(r.body) || Date.now() > end) return r;
    await new Promise((res) => setTimeout(res, 25));
  }
}

async function buy(l: LiveListing): Promise<void> {
  const buyer = await newBuyer(m, 'p2wpkh', `fresh-${l.id}`);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }] });
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

void test('a sale ends the cached book, collection floor and listing reads at once, through the door and inside the framework', async () => {
  const cheapest = listings[0]!;
  const first = await get('/v1/collections/fresh/book');
  assert.ok(bookIds(first.body).includes(cheapest.id));
  const hit = await get('/v1/collections/fresh/book');
  assert.equal(hit.cache, 'hit', 'the door answers the second read from the cache');
  const floor = await get('/v1/collections/fresh');
  assert.equal(floor.body.result.floor_sats, 20_000);
  assert.equal((await get('/v1/collections/fresh')).cache, 'hit');

  await buy(cheapest); // the checkout's claim commits with its `sale` in the event log

  const after = await until('/v1/collections/fresh/book', (b) => !bookIds(b).includes(cheapest.id));
  assert.equal(bookIds(after.body).includes(cheapest.id), false, 'the sold listing left the cached book');
  assert.equal(after.cc, 'public, max-age=30', 'the edge lifetime is unchanged');
  const floorAfter = await until('/v1/collections/fresh', (b) => b.result.floor_sats === 25_000);
  assert.equal(floorAfter.body.result.floor_sats, 25_000);
  const injected = await m.app.inject({ method: 'GET', url: '/v1/collections/fresh/book', remoteAddress: '10.61.0.1' });
  assert.equal(bookIds(JSON.parse(injected.body)).includes(cheapest.id), false, 'inside the framework too');
  // Once fresh, it is cached again.
  assert.equal((await get('/v1/collections/fresh/book')).cache, 'hit');
});

void test('a delist ends the cached book too', async () => {
  const [, second, third] = listings;
  assert.ok(bookIds((await get('/v1/collections/fresh/book')).body).includes(second!.id));
  await get('/v1/collections/fresh/book');
  const d = await m.call('POST', `/v1/listings/${second!.id}/delist`, seller.token, {});
  assert.equal(d.status, 200, JSON.stringify(d.body));
  const after = await until('/v1/collections/fresh/book', (b) => !bookIds(b).includes(second!.id));
  assert.deepEqual(bookIds(after.body), [third!.id]);
});

void test('Cache-Control: no-cache is answered from the store (x-cache: miss) and refreshes the entry', async () => {
  await get('/v1/collections/fresh/book');
  assert.equal((await get('/v1/collections/fresh/book')).cache, 'hit');
  const fresh = await get('/v1/collections/fresh/book', { 'cache-control': 'no-cache' });
  assert.equal(fresh.cache, 'miss');
  assert.equal(fresh.cc, 'public, max-age=30');
  assert.equal((await get('/v1/collections/fresh/book', { pragma: 'no-cache' })).cache, 'miss', 'HTTP/1.0 Pragma without Cache-Control');
  assert.equal((await get('/v1/collections/fresh/book', { 'cache-control': 'max-age=60' })).cache, 'hit', 'other directives keep the hit');
  const inj = await m.app.inject({ method: 'GET', url: '/v1/collections/fresh/book', headers: { 'cache-control': 'no-cache' }, remoteAddress: '10.61.0.2' });
  assert.equal(inj.headers['x-cache'], 'miss');
});

void test('a read of a market generation that moved on is never stored as current (a late writer cannot put a sold listing back)', async () => {
  const g = m.ctx.generation;
  const seen = g.now();
  assert.equal(g.current(seen), true);
  assert.equal(g.current({ ...seen, seq: seen.seq + 1 }), true, 'an entry written by an instance that heard more is current');
  assert.equal(g.current({ ...seen, seq: seen.seq - 1 }), false);
  assert.equal(g.current({ seq: seen.seq, tip: 'another-block' }), false, 'a block the indexer moved past');
  assert.equal(g.current({}), false, 'an entry without a generation');
});
