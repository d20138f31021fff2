/** GET /v1/events?tail=true: the newest entries of the ordered log, oldest first, to follow with after=. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller, type LiveListing } from '../helpers/listing.js';
import { complete, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';

let m: Market;
let sold: LiveListing;
before(async () => {
  m = await openMarket();
  const s = await newSeller(m, 'p2wpkh', 'tail-seller', 2);
  await listUnit(m, s, 20_000);
  sold = await listUnit(m, s, 21_000);
  const b = await newBuyer(m, 'p2wpkh', 'tail-buyer');
  const q = await quoteOk(m, b, { lines: [{ listing_id: sold.id }] });
  assert.equal((await complete(m, b, q.id, signQuote(q, b.w))).status, 200);
});
after(async () => m.close());

test('the newest entries in commit order (a sale after its own listing, whatever their times), then after= follows on', async () => {
  const all = (await m.call('GET', '/v1/events?after=0&limit=100', null)).body;
  const r = await m.call('GET', '/v1/events?tail=true&limit=2', null);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.result.map((e: any) => e.seq), all.result.slice(-2).map((e: any) => e.seq));
  assert.deepEqual(r.body.result.map((e: any) => e.kind), ['listed', 'sale']);
  assert.equal(r.body.result[1].event_id.length > 0 && r.body.result[0].seq < r.body.result[1].seq, true);
  assert.equal(r.body.next_after, all.next_after);
  const next = await m.call('GET', `/v1/events?after=${r.body.next_after}`, null);
  assert.deepEqual(next.body.result, []);
  const sales = await m.call('GET', '/v1/events?tail=true&kind=sales&limit=5', null);
  assert.deepEqual(sales.body.result.map((e: any) => e.kind), ['sale']);
  assert.equal((await m.call('GET', '/v1/events?tail=true&after=0', null)).status, 400);
});
