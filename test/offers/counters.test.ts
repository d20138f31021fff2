/**
 * A counter taken end to end with real keys: the seller counters a bid on its unit (1,000-sat
 * steps), the bidder reads it, funds a slot at the counter price naming the unit (the original
 * offer is consumed), authorizes, and the seller accepts; the unit reaches the bidder. Plus the
 * refusals: a counter that does not beat the offer by a step, an expired counter, a withdrawn one.
 * And a counter follows its unit: sold through the market it leaves the bidder's inbox at once;
 * moved by its holder it retires at the spend's block, and a reorg that undoes the spend restores it.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { SigHash } from '@scure/btc-signer';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { newSeller, type Seller } from '../helpers/listing.js';
import { complete, heldAt, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { listUnit } from '../helpers/listing.js';
import { buildTx, coinOf } from '../helpers/devnet.js';
import { authorizeOne, finalize, newBidder, placeFunded } from './exact-helpers.js';

let m: Market;
let seller: Seller;

before(async () => {
  m = await openMarket();
  seller = await newSeller(m, 'p2wpkh', 'counter-seller', 3);
});
after(async () => m?.close());

void it('counter, take by funding at the counter price, authorize, accept: the unit reaches the bidder; the original offer is consumed', async () => {
  const b = await newBidder(m);
  const placed = await placeFunded(m, b, 20_500, 1, [{ scope: 'asset', asset: seller.asset }]);
  const offerId = placed.funding_slots[0]!.offer_ids[0]!;
  const at = await m.attachDirect(seller.w, seller.asset, '1');
  await m.mine(2);
  await m.sync();
  const now = Math.floor(m.clock.now() / 1000);

  const low = await m.call('POST', `/v1/offers/${offerId}/counters`, seller.token, { asset_outpoint: at, price_sats: 21_200, expires_at: now + 3600 });
  assert.equal(low.status, 422, JSON.stringify(low.body));
  assert.deepEqual([low.body.code, low.body.minimum_counter_sats], ['counter_price_invalid', 21_000]);
  const mine = await m.call('POST', `/v1/offers/${offerId}/counters`, b.token, { asset_outpoint: at, price_sats: 22_000, expires_at: now + 3600 });
  assert.equal(mine.status, 409, JSON.stringify(mine.body));
  assert.equal(mine.body.code, 'self_trade');

  const c = await m.call('POST', `/v1/offers/${offerId}/counters`, seller.token, { asset_outpoint: at, price_sats: 23_000, expires_at: now + 3600 });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  const read = await m.call('GET', `/v1/address/${b.w.address}/counters`, b.token);
  assert.deepEqual(read.body.result.map((r: any) => [r.id, r.counter_of, r.price_sats, r.offer_price_sats, r.seller]), [[c.body.result.id, offerId, 23_000, 20_500, seller.w.address]]);
  assert.equal((await m.call('GET', `/v1/address/${b.w.address}/counters`, seller.token)).status, 403);
  await m.ctx.cache.clear();
  const pub = await m.call('GET', '/v1/events?limit=100', null);
  assert.ok(!JSON.stringify(pub.body).includes(c.body.result.id), 'counters are private');

  const taken = await placeFunded(m, b, 23_000, 1, [{ scope: 'asset', asset: seller.asset, target_outpoint: at }]);
  assert.equal((await m.ctx.store.db.selectFrom('offers').select(['state', 'end_reason']).where('id', '=', offerId).executeTakeFirstOrThrow()).state, 'consumed');
  const feed = (await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result.map((e: any) => e.kind);
  assert.ok(feed.includes('offer_consumed_by_counter'), JSON.stringify(feed));
  assert.equal((await m.call('GET', `/v1/address/${b.w.address}/counters`, b.token)).body.result.length, 0);

  await m.mine();
  await m.sync();
  const { a, act } = await authorizeOne(m, b, taken.funding_slots[0]!.offer_ids[0]!, at);
  assert.equal(act.status, 200, JSON.stringify(act.body));
  // The saved accept (the recovery read after a lost completion reply): nothing yet, then broadcast, then confirmed.
  const status = async (token = seller.token) => m.call('GET', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, token);
  const none = await status();
  assert.equal(none.status, 200, JSON.stringify(none.body));
  assert.deepEqual([none.body.result.status, none.body.result.settlement_id, none.body.result.txid], ['not_accepted', null, null]);
  assert.equal((await status(b.token)).status, 404, "the bidder does not read the seller's accept");
  const pf = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept-preflight`, seller.token, {});
  const acc = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, seller.token, { psbt_hex: signPsbt(pf.body.result.psbt_hex, seller.w, [1], SigHash.ALL) });
  assert.equal(acc.status, 200, JSON.stringify(acc.body));
  assert.equal(acc.body.result.price_sats, 23_000);
  const sent = (await status()).body.result;
  assert.deepEqual([sent.status, sent.txid, sent.settlement_id, sent.authorization_status, sent.claims_released], ['broadcast', acc.body.result.txid, acc.body.result.settlement_id, 'used', false]);
  await m.mine();
  await m.sync();
  const done = (await status()).body.result;
  assert.deepEqual([done.status, done.confirmations], ['confirmed', 1]);
  assert.equal(await heldAt(m, b.w.address, seller.asset), 1n);
});

void it('an expired counter is 410 when taken; a withdrawn one is gone', async () => {
  const seller = await newSeller(m, 'p2tr', 'counter-follows', 2);
  const b = await newBidder(m);
  const placed = await placeFunded(m, b, 20_000, 1, [{ scope: 'asset', asset: seller.asset }]);
  const offerId = placed.funding_slots[0]!.offer_ids[0]!;
  const at = await m.attachDirect(seller.w, seller.asset, '1');
  await m.sync();
  const now = Math.floor(m.clock.now() / 1000);
  const c1 = await m.call('POST', `/v1/offers/${offerId}/counters`, seller.token, { asset_outpoint: at, price_sats: 25_000, expires_at: now + 60 });
  assert.equal(c1.status, 200, JSON.stringify(c1.body));
  const c2 = await m.call('POST', `/v1/offers/${offerId}/counters`, seller.token, { asset_outpoint: at, price_sats: 30_000, expires_at: now + 3600 });
  assert.equal((await m.call('POST', `/v1/counters/${c2.body.result.id}/withdraw`, b.token)).status, 404);
  assert.equal((await m.call('POST', `/v1/counters/${c2.body.result.id}/withdraw`, seller.token)).status, 200);
  assert.equal((await m.call('POST', `/v1/counters/${c2.body.result.id}/withdraw`, seller.token)).status, 409);
  m.clock.advance(61_000);
  const f = await m.call('POST', '/v1/offer-funding', b.token, { price_sats: 25_000, slots: 1, fee_rate: 2 });
  const raw = finalize(signPsbt(f.body.result.psbt_hex, b.w, f.body.result.inputs_to_sign, SigHash.ALL));
  const r = await m.call('POST', '/v1/funded-offers', b.token, { funding_tx_hex: raw, bids: f.body.result.bids, targets: [{ scope: 'asset', asset: seller.asset, target_outpoint: at }], expires_at: Math.floor(m.clock.now() / 1000) + 3600 });
  assert.equal(r.status, 410, JSON.stringify(r.body));
  assert.equal(r.body.code, 'expired');
  assert.equal(await m.devnet.bitcoin.getTxOut(f.body.result.expected_txid, 0, true), null, 'nothing relayed');
  assert.equal((await m.ctx.store.db.selectFrom('offers').select('state').where('id', '=', offerId).executeTakeFirstOrThrow()).state, 'active');
});

void it("a counter over a unit that is no longer unspent is 409 state_changed (a sale or reorg won the race); over another address's unit, 403", async () => {
  const b = await newBidder(m);
  const placed = await placeFunded(m, b, 20_000, 1, [{ scope: 'asset', asset: seller.asset }]);
  const offerId = placed.funding_slots[0]!.offer_ids[0]!;
  const now = Math.floor(m.clock.now() / 1000);
  const gone = { txid: 'ab'.repeat(32), vout: 0 };
  const r = await m.call('POST', `/v1/offers/${offerId}/counters`, seller.token, { asset_outpoint: gone, price_sats: 25_000, expires_at: now + 3600 });
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.deepEqual([r.body.code, r.body.field, r.body.outpoint], ['state_changed', 'body.asset_outpoint', `${gone.txid}:0`]);
  const other = await newSeller(m, 'p2wpkh', 'counter-other', 1);
  const theirs = await m.attachDirect(other.w, other.asset, '1');
  await m.mine(1);
  await m.sync();
  const f = await m.call('POST', `/v1/offers/${offerId}/counters`, seller.token, { asset_outpoint: theirs, price_sats: 25_000, expires_at: now + 3600 });
  assert.equal(f.status, 403, JSON.stringify(f.body));
  assert.equal(f.body.code, 'forbidden');
});

void it("a counter follows its unit: a checkout's sale hides it at once, a holder's move retires it at its block, a reorg of that block restores it", async () => {
  const b = await newBidder(m);
  const placed = await placeFunded(m, b, 20_000, 1, [{ scope: 'asset', asset: seller.asset }]);
  const offerId = placed.funding_slots[0]!.offer_ids[0]!;
  const listing = await listUnit(m, seller, 90_000);
  const moved = await m.attachDirect(seller.w, seller.asset, '1');
  await m.mine(2);
  await m.sync();
  const now = Math.floor(m.clock.now() / 1000);
  const counter = async (at: { txid: string; vout: number }) => {
    const r = await m.call('POST', `/v1/offers/${offerId}/counters`, seller.token, { asset_outpoint: at, price_sats: 30_000, expires_at: now + 3600 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.result.id as string;
  };
  const sold = await counter({ txid: listing.utxo_txid, vout: listing.utxo_vout });
  const kept = await counter(moved);
  const inbox = async () => ((await m.call('GET', `/v1/address/${b.w.address}/counters`, b.token)).body.result as any[]).map((r) => r.id).sort();
  const state = async (id: string) => (await m.ctx.store.db.selectFrom('offer_counters').select(['state', 'retired_height']).where('id', '=', id).executeTakeFirstOrThrow());
  assert.deepEqual(await inbox(), [sold, kept].sort());

  // Sold through the market: gone from the inbox as soon as the checkout answers, before any block.
  const buyer = await newBuyer(m, 'p2wpkh', 'counter-buyer');
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: listing.id }] });
  assert.equal((await complete(m, buyer, q.id, signQuote(q, buyer.w))).status, 200);
  assert.deepEqual(await inbox(), [kept]);

  // Moved by its holder (a plain spend the market did not make): retired when the spend confirms.
  const fee = await m.fund(seller.w, 20_000);
  await m.mine();
  await m.sync();
  assert.equal((await state(sold)).state, 'retired', "the sale's block retires its counter too");
  const move = buildTx(
    [{ wallet: seller.w, coin: coinOf(m.devnet, moved.txid, moved.vout) }, { wallet: seller.w, coin: fee }],
    [{ script: seller.w.script, amount: 330n }, { script: seller.w.script, amount: fee.amount - 2_000n }],
  );
  await m.devnet.bitcoin.broadcast(move);
  await m.mine();
  await m.sync();
  assert.deepEqual(await inbox(), []);
  const { height } = await m.devnet.bitcoin.getTip();
  assert.deepEqual(await state(kept), { state: 'retired', retired_height: height });

  // The move's block is disconnected (its transactions back in the mempool): the counter is live again; mined anew, retired again.
  await m.devnet.invalidateBlock((await m.devnet.bitcoin.getBlockHash(height))!);
  await m.sync();
  assert.deepEqual(await state(kept), { state: 'active', retired_height: null });
  assert.deepEqual(await inbox(), [kept]);
  await m.mine();
  await m.sync();
  assert.deepEqual(await inbox(), []);
  assert.equal((await state(kept)).state, 'retired');
});
