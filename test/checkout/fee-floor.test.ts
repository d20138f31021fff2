/**
 * The fee floor comes from the node (issue #28): on a node that relays from 1 sat/vB (Core up to
 * 29.0) a quote, a listing preflight or an offer funding below it is refused before anything is
 * composed, with the floor; at the floor it is built. The devnet's default (Core 29.1's 0.1
 * sat/vB) takes 0.1 as before.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { newBuyer, quote } from '../helpers/checkout.js';
import { newBidder } from '../offers/exact-helpers.js';

let m: Market;
before(async () => {
  m = await openMarket({ DEVNET_MIN_RELAY_FEE_RATE: '1', DEVNET_INCREMENTAL_RELAY_FEE_RATE: '1' });
});
after(async () => m.close());

const floorRefusal = (r: { status: number; body: Record<string, any> }) => {
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.code, 'mempool_rejected');
  assert.equal(r.body.mempool_policy, 'fee_floor');
  assert.equal(r.body.minimum_fee_rate, 1);
  assert.equal(r.body.field, 'body.fee_rate');
};

void test('the fee estimates name the node\'s floor', async () => {
  const f = await m.call('GET', '/v1/fee-rate', null);
  assert.equal(f.status, 200, JSON.stringify(f.body));
  assert.equal(f.body.result.minimum, 1);
});

void test('a quote below the node\'s floor is refused with the floor; at the floor it is composed', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'floor');
  const l = await listUnit(m, seller, 10_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'floor');
  floorRefusal(await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 0.5 }));
  const ok = await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.result.fee_rate, 1);
});

void test('a listing preflight and an offer funding below the floor are refused the same way', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'floor-pf');
  const attach = { seller: seller.w.address, asset: seller.asset, quantity_raw: '1', mode: 'attach', price_sats: 12_000 };
  floorRefusal(await m.call('POST', '/v1/listing-preflights', seller.token, { ...attach, fee_rate: 0.5, idempotency_key: 'floor-low' }));
  const pf = await m.call('POST', '/v1/listing-preflights', seller.token, { ...attach, fee_rate: 1, idempotency_key: 'floor-ok' });
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  const b = await newBidder(m);
  floorRefusal(await m.call('POST', '/v1/offer-funding', b.token, { price_sats: 20_000, slots: 1, delivery_mode: 'detached', fee_rate: 0.5 }));
  const ok = await m.call('POST', '/v1/offer-funding', b.token, { price_sats: 20_000, slots: 1, delivery_mode: 'detached', fee_rate: 1 });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});
