/**
 * Quoting the same cart again after a refusal: the same coins, listings and fee rate would build
 * the very transaction the journal already holds (released). The journal keeps one settlement
 * per txid, so a new quote must be a new transaction, and an old quote that is byte for byte the
 * released one is refused cleanly (409 checkout_changed), never a 500.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, fillsOf, listingRow, newBuyer, quoteOk, readOp, signQuote } from '../helpers/checkout.js';
import { TxRejected } from '../../src/chain/ports.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

/** The node refuses the next broadcast for its (transient) mempool floor. */
function refuseOnce(): void {
  const bitcoin = m.devnet.bitcoin;
  const original = bitcoin.broadcast.bind(bitcoin);
  bitcoin.broadcast = async () => {
    bitcoin.broadcast = original;
    throw new TxRejected('mempool min fee not met, 412 < 2000');
  };
}

void test('after a transient refusal the same cart quoted again completes; an identical older quote is 409 checkout_changed', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'requote');
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'requote');
  const body = { lines: [{ listing_id: l.id }], fee_rate: 2 };
  const early = await quoteOk(m, buyer, body); // quoted before anything was journaled
  const q1 = await quoteOk(m, buyer, body);
  assert.equal(q1.expected_txid, early.expected_txid, 'nothing journaled yet: the same cart is the same transaction');

  refuseOnce();
  const r1 = await complete(m, buyer, q1.id, signQuote(q1, buyer.w));
  assert.deepEqual([r1.status, r1.body.code, r1.body.mempool_policy, r1.body.claims_released], [422, 'mempool_rejected', 'fee_floor', true], JSON.stringify(r1.body));
  assert.equal((await listingRow(m, l.id)).state, 'active');

  // The older quote is the released transaction itself: refused, nothing written.
  const old = await complete(m, buyer, early.id, signQuote(early, buyer.w));
  assert.deepEqual([old.status, old.body.code], [409, 'checkout_changed'], JSON.stringify(old.body));
  assert.equal((await readOp(m, buyer, early.id)).body.result.status, 'quoted');
  assert.equal((await listingRow(m, l.id)).state, 'active');

  // The mempool floor is back down: the same cart quoted again is a new transaction and completes.
  const q2 = await quoteOk(m, buyer, body);
  assert.notEqual(q2.expected_txid, q1.expected_txid);
  assert.equal(q2.totals.network_fee_sats, q1.totals.network_fee_sats, 'the buyer pays the same');
  const r2 = await complete(m, buyer, q2.id, signQuote(q2, buyer.w));
  assert.deepEqual([r2.status, r2.body.result?.status], [200, 'broadcast'], JSON.stringify(r2.body));
  await m.mine();
  await m.sync();
  assert.equal((await readOp(m, buyer, q2.id)).body.result.status, 'confirmed');
  assert.equal((await readOp(m, buyer, q1.id)).body.result.status, 'failed');
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => [f.txid, f.state]), [[q1.expected_txid, 'dropped'], [q2.expected_txid, 'confirmed']]);
});
