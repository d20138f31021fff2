/** GET /v1/address/{address}/listings: the seller's own listings, newest first, by state, paged. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller, type LiveListing, type Seller } from '../helpers/listing.js';
import { complete, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';

let m: Market;
let s: Seller;
let other: Seller;
const l: LiveListing[] = [];

before(async () => {
  m = await openMarket();
  s = await newSeller(m, 'p2wpkh', 'seller-listings', 4);
  other = await newSeller(m, 'p2tr', 'seller-listings-other', 1);
  for (const [price, ttl] of [[20_000, 86_400], [21_000, 86_400], [22_000, 86_400], [23_000, 600]] as const) {
    l.push(await listUnit(m, s, price, { ttl }));
    m.clock.advance(1_000); // distinct created_at: newest first is a real order
  }
  await listUnit(m, other, 30_000);
  // One sold, one delisted, one past its market expiry (read as ended/expired before the indexer records it).
  const buyer = await newBuyer(m, 'p2wpkh', 'seller-listings-buyer');
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l[0]!.id }] });
  assert.equal((await complete(m, buyer, q.id, signQuote(q, buyer.w))).status, 200);
  assert.equal((await m.call('POST', `/v1/listings/${l[1]!.id}/delist`, s.token, {})).status, 200);
  m.clock.advance(700_000);
});
after(async () => m.close());

const read = (q = '', token: string | null = s.token, address = s.w.address) => m.call('GET', `/v1/address/${address}/listings${q}`, token);

test('newest first, every state as read now, never the signed half', async () => {
  const r = await read();
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.deepEqual(
    r.body.result.map((x: any) => [x.id, x.state, x.end_reason]),
    [
      [l[3]!.id, 'ended', 'expired'],
      [l[2]!.id, 'active', null],
      [l[1]!.id, 'ended', 'owner'],
      [l[0]!.id, 'reserved', null],
    ],
  );
  const active = r.body.result[1];
  assert.deepEqual(active.asset_utxo, { txid: l[2]!.utxo_txid, vout: l[2]!.utxo_vout });
  assert.equal(active.price_sats, 22_000);
  assert.equal(active.version, 1);
  assert.equal(r.body.result[0].ended_at, l[3]!.expires_at);
  assert.doesNotMatch(JSON.stringify(r.body), /70736274ff/, 'never a PSBT');
});

test('by state: active is exactly what buyers can fill; ended includes the lapsed', async () => {
  const ids = async (state: string) => (await read(`?state=${state}`)).body.result.map((x: any) => x.id);
  assert.deepEqual(await ids('active'), [l[2]!.id]);
  assert.deepEqual(await ids('ended'), [l[3]!.id, l[1]!.id]);
  assert.deepEqual(await ids('reserved'), [l[0]!.id]);
  assert.deepEqual(await ids('sold'), []);
  assert.equal((await read('?state=gone')).status, 400);
});

test('paged by an opaque cursor bound to the filter', async () => {
  const first = await read('?limit=3');
  assert.equal(first.body.result_count, 3);
  assert.ok(first.body.next_cursor);
  const second = await read(`?limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`);
  assert.deepEqual(second.body.result.map((x: any) => x.id), [l[0]!.id]);
  assert.equal(second.body.next_cursor, null);
  const wrong = await read(`?limit=3&state=active&cursor=${encodeURIComponent(first.body.next_cursor)}`);
  assert.equal(wrong.status, 400, 'a cursor of another filter');
});

test('owner only: 401 without a session, 403 for another address', async () => {
  assert.equal((await read('', null)).status, 401);
  const foreign = await read('', other.token);
  assert.equal(foreign.status, 403);
  assert.equal(foreign.body.code, 'forbidden');
  assert.deepEqual((await read('', other.token, other.w.address)).body.result.map((x: any) => x.price_sats), [30_000]);
});
