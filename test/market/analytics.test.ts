/** The analytics snapshot over stored listings and fills: windows, exclusions, zero-filled days, depth, kinds, top sales. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { nowSeconds } from '../../src/clock.js';
import { BUYER, SELLER, insertFill, insertListing } from './rows.js';

let t: TestApp;
let now: number;
const DAY = 86_400;
const OTHER_SELLER = 'bcrt1qothersellerxxxxxxxxxxxxxxx';
const OTHER_BUYER = 'bcrt1qotherbuyerxxxxxxxxxxxxxxxx';

before(async () => {
  t = await testApp({ chain: unreachableChain() });
  now = nowSeconds(t.clock);
});
after(async () => t.close());

const snapshot = async () => {
  const r = await t.app.inject({ method: 'GET', url: '/v1/analytics' });
  assert.equal(r.statusCode, 200, r.body);
  return { body: JSON.parse(r.body).result as Record<string, any>, headers: r.headers };
};

test('an empty market: zeros, a zero-filled 31-day series, both sale kinds; cached 60 seconds', async () => {
  const { body, headers } = await snapshot();
  assert.equal(headers['cache-control'], 'public, max-age=60');
  assert.deepEqual([body.as_of, body.since], [now, now - 30 * DAY]);
  assert.deepEqual(body.market, { listings: 0, asking_value_sats: 0, sellers: 0, open_offers: 0, bidders: 0 });
  assert.deepEqual(body.sales, { volume_sats: 0, sales: 0, transactions: 0, buyers: 0, sellers: 0 });
  assert.equal(body.daily.length, 31);
  assert.deepEqual(body.daily[0], { day: new Date((now - 30 * DAY) * 1000).toISOString().slice(0, 10), volume_sats: 0, sales: 0 });
  assert.equal(body.daily.at(-1).day, '2026-11-22');
  assert.deepEqual(body.depth, []);
  assert.deepEqual(body.sale_types, [{ kind: 'listing', volume_sats: 0, sales: 0 }, { kind: 'offer', volume_sats: 0, sales: 0 }]);
  assert.deepEqual(body.top_sales, []);
});

test('figures: current public fillable listings; confirmed fills broadcast in [since, as_of]', async () => {
  const db = t.ctx.store.db;
  await insertListing(db, { asset: 'ANYA', price_sats: 10_000, now });
  await insertListing(db, { asset: 'ANYB', price_sats: 10_000, now, seller: OTHER_SELLER });
  await insertListing(db, { asset: 'ANYC', price_sats: 7_000, now });
  await insertListing(db, { asset: 'ANYD', price_sats: 5_000, now, expires_at: now });
  for (const state of ['pending', 'reserved', 'sold', 'ended'] as const) await insertListing(db, { asset: 'ANYE', price_sats: 5_000, now, state });

  const shared = 'ab'.repeat(32);
  const sales = [
    await insertFill(db, { asset: 'ANYA', price_sats: 50_000, broadcast_at: now - 30 * DAY, txid: shared }), // exactly at since
    await insertFill(db, { asset: 'ANYB', price_sats: 20_000, broadcast_at: now - 30 * DAY, txid: shared }),
    await insertFill(db, { asset: 'ANYC', price_sats: 30_000, broadcast_at: now - 2 * DAY, kind: 'offer', seller: OTHER_SELLER, buyer: OTHER_BUYER, asset_longname: 'PARENT.c' }),
    await insertFill(db, { asset: 'ANYA', price_sats: 40_000, broadcast_at: now }), // exactly at as_of
  ];
  await insertFill(db, { asset: 'ANYA', price_sats: 900_000, broadcast_at: now - 30 * DAY - 1 }); // before the window
  await insertFill(db, { asset: 'ANYA', price_sats: 800_000, broadcast_at: now - DAY, state: 'pending' });
  await insertFill(db, { asset: 'ANYA', price_sats: 700_000, broadcast_at: now - DAY, state: 'dropped' });
  t.clock.advance(60_000); // past the cache; the window moves a minute
  const at = now + 60;
  await insertFill(db, { asset: 'ANYA', price_sats: 60_000, broadcast_at: at + 1 }); // after as_of

  const { body } = await snapshot();
  assert.deepEqual([body.as_of, body.since], [at, at - 30 * DAY]);
  assert.deepEqual(body.market, { listings: 3, asking_value_sats: 27_000, sellers: 2, open_offers: 0, bidders: 0 });
  // The fill at exactly now − 30 days fell out when the window moved a minute.
  assert.deepEqual(body.sales, { volume_sats: 70_000, sales: 2, transactions: 2, buyers: 2, sellers: 2 });
  assert.deepEqual(body.depth, [
    { price_sats: 7_000, listings: 1, offers: 0 },
    { price_sats: 10_000, listings: 2, offers: 0 },
  ]);
  assert.deepEqual(body.sale_types, [{ kind: 'listing', volume_sats: 40_000, sales: 1 }, { kind: 'offer', volume_sats: 30_000, sales: 1 }]);
  assert.deepEqual(body.top_sales, [
    { txid: sales[3]!.txid, ref_id: sales[3]!.ref_id, asset: 'ANYA', asset_longname: null, price_sats: 40_000, buyer: BUYER, seller: SELLER, broadcast_at: now },
    { txid: sales[2]!.txid, ref_id: sales[2]!.ref_id, asset: 'ANYC', asset_longname: 'PARENT.c', price_sats: 30_000, buyer: OTHER_BUYER, seller: OTHER_SELLER, broadcast_at: now - 2 * DAY },
  ]);
  const days = Object.fromEntries(body.daily.filter((d: any) => d.sales).map((d: any) => [d.day, [d.volume_sats, d.sales]]));
  assert.deepEqual(days, { '2026-11-20': [30_000, 1], '2026-11-22': [40_000, 1] });
  assert.equal(body.daily.length, 31);
});

test('sales in one transaction count once as a transaction; the window start is inclusive; top sales keep ten', async () => {
  t.clock.set(now * 1000); // back to the first window
  const db = t.ctx.store.db;
  for (let i = 0; i < 11; i++) await insertFill(db, { asset: 'ANYZ', price_sats: 1_000 + i, broadcast_at: now - 5 * DAY, txid: 'cd'.repeat(32) });
  await t.ctx.cache.clear();
  const { body } = await snapshot();
  assert.deepEqual(
    [body.sales.sales, body.sales.transactions, body.sales.volume_sats],
    [4 + 11, 3 + 1, 140_000 + 11 * 1_000 + 55],
    'the since-edge pair (one txid), the offer, the as_of sale, and eleven sales in one transaction',
  );
  assert.equal(body.top_sales.length, 10);
  assert.deepEqual(body.top_sales.slice(0, 4).map((s: any) => s.price_sats), [50_000, 40_000, 30_000, 20_000]);
  assert.deepEqual(body.top_sales.slice(4).map((s: any) => s.price_sats), [1_010, 1_009, 1_008, 1_007, 1_006, 1_005]);
  assert.equal(body.daily[0].sales, 2, 'the first (partial) day holds the sales at exactly since');
});
