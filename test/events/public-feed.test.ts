/** GET /v1/events over rows inserted directly: which rows are events, their fields, kinds, paging and refusals. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { makeWallet } from '../helpers/wallets.js';
import { confirmFill, dropFill, insertFill, insertListing } from '../helpers/feed-rows.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { eventId } from '../../src/trade/event-rows.js';
import { catalog } from '../market/fixture.js';

let t: TestApp;
const seller = makeWallet('p2wpkh', 'pf-seller').address;
const buyer = makeWallet('p2pkh', 'pf-buyer').address;
const T0 = 1_700_000_000;

interface Expected {
  event_id: string;
  kind: string;
  at: number;
  reason: string | null;
  asset: string;
}
const events: Expected[] = [];

before(async () => {
  // The chain is down: named assets need no longname lookup, so the feed never asks it.
  t = await testApp({ chain: unreachableChain() });
  await importCatalog(t.ctx.store.db, catalog);
  const db = t.ctx.store.db;
  const now = Math.floor(t.clock.now() / 1000);
  const listed = (id: string, at: number, asset: string) => events.push({ event_id: eventId('listed', id), kind: 'listed', at, reason: null, asset });
  const delisted = (id: string, at: number, reason: string, asset: string) => events.push({ event_id: eventId('delisted', id), kind: 'delisted', at, reason, asset });

  // Five listings activated in the same second, and several ended in one second: ties everywhere.
  for (let i = 0; i < 5; i++) {
    const l = await insertListing(db, { seller, asset: 'PEPEONE', activated_at: T0 + 10, expires_at: now + 86_400 });
    listed(l.id, T0 + 10, 'PEPEONE');
  }
  for (const reason of ['owner', 'invalid', 'owner'] as const) {
    const l = await insertListing(db, { seller, asset: 'CATTEN', activated_at: T0 + 20, state: 'ended', end_reason: reason, ended_at: T0 + 30, signed_psbt: null, expires_at: now + 86_400 });
    listed(l.id, T0 + 20, 'CATTEN');
    delisted(l.id, T0 + 30, reason, 'CATTEN');
  }
  // Expired: ended by the indexer later than its expiry; the event stays at expires_at.
  const exp = await insertListing(db, { seller, asset: 'NONCOA', activated_at: T0 + 5, expires_at: T0 + 40, state: 'ended', end_reason: 'expired', ended_at: T0 + 150, signed_psbt: null });
  listed(exp.id, T0 + 5, 'NONCOA');
  delisted(exp.id, T0 + 40, 'expired', 'NONCOA');
  // Active but past its expiry: delisted at read time.
  const due = await insertListing(db, { seller, asset: 'NOTINCATALOG', activated_at: T0 + 6, expires_at: T0 + 30 });
  listed(due.id, T0 + 6, 'NOTINCATALOG');
  delisted(due.id, T0 + 30, 'expired', 'NOTINCATALOG');
  // Sold: listed, and its sale is the ending (no delisted).
  const sold = await insertListing(db, { seller, asset: 'PEPETWO', activated_at: T0 + 7, state: 'sold', signed_psbt: null, expires_at: now + 86_400 });
  listed(sold.id, T0 + 7, 'PEPETWO');
  const sale = await insertFill(db, { seller, buyer, asset: 'PEPETWO', ref_id: sold.id, broadcast_at: T0 + 30, asset_longname: null, price_sats: 31_000 });
  await confirmFill(db, sale.id, T0 + 33, 200);
  events.push({ event_id: eventId('sale', sale.id), kind: 'sale', at: T0 + 30, reason: null, asset: 'PEPETWO' });
  const offerSale = await insertFill(db, { seller, buyer, asset: 'ZETAONE', kind: 'offer', ref_id: 'off_1', broadcast_at: T0 + 10 });
  events.push({ event_id: eventId('sale', offerSale.id), kind: 'sale', at: T0 + 10, reason: null, asset: 'ZETAONE' });
  // Never events: a pending listing (delisted or not), one activated at or after its expiry, a dropped fill.
  await insertListing(db, { seller, asset: 'PEPEFOUR', state: 'pending', activated_at: null });
  await insertListing(db, { seller, asset: 'PEPEFOUR', state: 'ended', end_reason: 'owner', activated_at: null, ended_at: T0 + 10 });
  await insertListing(db, { seller, asset: 'PEPEFOUR', state: 'ended', end_reason: 'expired', activated_at: T0 + 50, expires_at: T0 + 50, ended_at: T0 + 50 });
  const dropped = await insertFill(db, { seller, buyer, asset: 'PEPEFOUR', broadcast_at: T0 + 60 });
  await dropFill(db, dropped.id, T0 + 61);
  events.sort((a, b) => b.at - a.at || (a.event_id < b.event_id ? 1 : -1));
});
after(async () => t.close());

const get = (url: string) => getJson(t.app, url);

async function all(query: string, limit: number) {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const r = await get(`/v1/events?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.body.result_count, r.body.result.length);
    assert.ok(r.body.result.length <= limit);
    rows.push(...r.body.result);
    cursor = r.body.next_cursor;
  } while (cursor);
  return rows;
}

const brief = (e: any) => ({ event_id: e.event_id, kind: e.kind, at: e.at, reason: e.reason, asset: e.asset });

void test('every event once, newest first by (at, event_id), at every page size', async () => {
  for (const limit of [1, 2, 3, 7, 100]) {
    const rows = await all('', limit);
    assert.deepEqual(rows.map(brief), events, `limit ${limit}`);
  }
});

void test('kind filters: sales, listings (listed and delisted), offers (an empty page of the same shape)', async () => {
  assert.deepEqual((await all('&kind=sales', 1)).map(brief), events.filter((e) => e.kind === 'sale'));
  assert.deepEqual((await all('&kind=listings', 4)).map(brief), events.filter((e) => e.kind !== 'sale'));
  const offers = await get('/v1/events?kind=offers');
  assert.equal(offers.status, 200);
  assert.deepEqual(offers.body, { result: [], result_count: 0, next_cursor: null });
});

void test('fields: exactly the spec table; sale carries buyer (delivery), txid, fill_kind, confirmed_at; collection is the primary one', async () => {
  const rows = await all('', 100);
  const keys = ['event_id', 'kind', 'at', 'reason', 'asset', 'asset_longname', 'collection', 'price_sats', 'seller', 'buyer', 'bidder', 'txid', 'fill_kind', 'confirmed_at'];
  for (const r of rows) assert.deepEqual(Object.keys(r).sort(), [...keys].sort());
  const sale = rows.find((r) => r.kind === 'sale' && r.asset === 'PEPETWO');
  const fill = await t.ctx.store.db.selectFrom('fills').selectAll().where('asset', '=', 'PEPETWO').where('state', '=', 'confirmed').executeTakeFirstOrThrow();
  assert.deepEqual(sale, {
    event_id: eventId('sale', fill.id),
    kind: 'sale',
    at: T0 + 30,
    reason: null,
    asset: 'PEPETWO',
    asset_longname: null,
    collection: 'alpha',
    price_sats: 31_000,
    seller,
    buyer,
    bidder: null,
    txid: fill.txid,
    fill_kind: 'listing',
    confirmed_at: T0 + 33,
  });
  const offerSale = rows.find((r) => r.kind === 'sale' && r.asset === 'ZETAONE');
  assert.deepEqual([offerSale.fill_kind, offerSale.confirmed_at, offerSale.collection], ['offer', null, 'beta']);
  const l = rows.find((r) => r.kind === 'listed' && r.asset === 'PEPEONE');
  assert.deepEqual(
    { ...l, event_id: undefined },
    { event_id: undefined, kind: 'listed', at: T0 + 10, reason: null, asset: 'PEPEONE', asset_longname: null, collection: 'alpha', price_sats: 10_000, seller, buyer: null, bidder: null, txid: null, fill_kind: null, confirmed_at: null },
    'PEPEONE is in alpha (primary) and beta',
  );
  assert.equal(rows.find((r) => r.asset === 'NOTINCATALOG').collection, null);
  assert.equal(rows.find((r) => r.asset === 'CATTEN').collection, 'gamma');
});

void test('public and cached 15 s; no PSBT, signature or private field in any reply', async () => {
  const r = await get('/v1/events');
  assert.equal(r.headers['cache-control'], 'public, max-age=15');
  const again = await get('/v1/events');
  assert.equal(again.headers['x-cache'], 'hit');
  for (const q of ['', '?kind=sales', '?kind=listings']) {
    const body = (await get(`/v1/events${q}`)).raw;
    for (const secret of ['psbt', '70736274ff', 'signed', 'payer', 'settlement_id']) assert.ok(!body.includes(secret), `${q}: ${secret}`);
  }
});

void test('an event reflects its row now: after the cache, a reprice shows in price_sats', async () => {
  const db = t.ctx.store.db;
  const before = (await get('/v1/events?kind=listings&limit=100')).body.result;
  const target = before.find((e: any) => e.kind === 'listed' && e.asset === 'PEPEONE');
  const listingId = (await db.selectFrom('listings').select(['id']).where('asset', '=', 'PEPEONE').execute()).find((x) => eventId('listed', x.id) === target.event_id)!.id;
  await db.updateTable('listings').set({ price_sats: 12_345 }).where('id', '=', listingId).execute();
  t.clock.advance(16_000);
  const after = (await get('/v1/events?kind=listings&limit=100')).body.result.find((e: any) => e.event_id === target.event_id);
  assert.equal(after.price_sats, 12_345);
});

void test('refusals: a cursor with another kind or from another route, bad kind and limits', async () => {
  const first = await get('/v1/events?limit=2&kind=listings');
  const c = encodeURIComponent(first.body.next_cursor);
  assert.equal((await get(`/v1/events?limit=2&kind=listings&cursor=${c}`)).status, 200);
  for (const url of [`/v1/events?cursor=${c}`, `/v1/events?kind=sales&cursor=${c}`, `/v1/events?kind=offers&cursor=${c}`, `/v1/fills?cursor=${c}`, '/v1/events?cursor=abc.def', '/v1/events?kind=sale', '/v1/events?limit=0', '/v1/events?limit=101']) {
    const r = await get(url);
    assert.deepEqual([r.status, r.body.code], [400, 'invalid_request'], url);
  }
  // A well-signed cursor whose position is not (at, event_id) is refused, never a 500.
  const forged = t.ctx.cursors.encode('/v1/events', { kind: undefined }, { at: 1 });
  const r = await get(`/v1/events?cursor=${encodeURIComponent(forged)}`);
  assert.deepEqual([r.status, r.body.code], [400, 'invalid_request']);
});

void test('a numeric (possibly sub-) asset needs its longname: with Counterparty down the feed answers 503, never a wrong null', async () => {
  const db = t.ctx.store.db;
  await insertListing(db, { seller, asset: 'A95428956661682177', activated_at: T0 + 1_000, expires_at: Math.floor(t.clock.now() / 1000) + 86_400 });
  t.clock.advance(16_000);
  const r = await get('/v1/events?kind=listings');
  assert.deepEqual([r.status, r.body.code, r.headers['cache-control']], [503, 'upstream_unavailable', 'no-store']);
  assert.equal((await get('/v1/events?kind=sales')).status, 200, 'sales carry their own longname');
});

void test('OpenAPI documents the feeds: paging, the owner rules (dedupe on event_id, overlap re-read, expiry) and the fills choices', async () => {
  const doc = (await get('/v1/openapi.json')).body;
  const pub = doc.paths['/v1/events'].get;
  const own = doc.paths['/v1/address/{address}/events'].get;
  const fills = doc.paths['/v1/fills'].get;
  assert.match(pub.description, /cached up to 15 seconds/);
  assert.match(pub.description, /same `event_id`/);
  assert.match(own.description, /1\. Dedupe on `event_id`\. Re-read a short overlap of the head page/);
  assert.match(own.description, /2\. Follow `next_cursor` only to catch up on older events/);
  assert.match(own.description, /3\. `at` is when the market observed the event/);
  assert.match(own.description, /403 forbidden/);
  assert.ok(own.responses['401'] && own.responses['403']);
  assert.match(fills.description, /unknown slug is 404 not_found/);
  assert.match(fills.description, /`role` without `address` is 400/);
  for (const p of [pub, own, fills]) assert.ok(p.responses['200']);
});
