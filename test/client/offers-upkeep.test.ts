/**
 * The upkeep of offers through the client, against the real app on the devnet with real keys:
 * - the bidder reads its placement, cancels one offer, reviews that its funding output is free,
 *   cancels the rest in a batch (the already-cancelled one answered `state_changed`), places bids
 *   again over the same outputs it still holds (POST /v1/offers, nothing signed), and cancels that
 *   placement whole: no live offer is left on the asset; a stranger's cancel is 404;
 * - the seller withdraws a counter (gone from the bidder's counters; withdrawn again is 409), checks
 *   a selection of authorizations, and the bidder cancels its authorization: the selection then
 *   refuses it and the seller's accept is refused before its wallet is asked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MarketError } from '../../client/src/index.js';
import { openMarket, type Market } from '../helpers/market.js';
import { newSeller } from '../helpers/listing.js';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';
import { clientFor as harnessClient } from './harness.js';
import { routeCoverage } from './coverage.js';

const refusedWith = (status: number, code?: string) => (e: unknown) => e instanceof MarketError && e.status === status && (code === undefined || e.code === code);

void describe('client: offers upkeep', () => {
  let m: Market;
  before(async () => {
    m = await openMarket();
  });
  after(async () => m?.close());

  const clientFor = (w: TestWallet, calls = { sign: 0 }) => harnessClient(m, w, calls);
  const expires = () => Math.floor(m.clock.now() / 1000) + 86_400;

  void it('a placement read, cancelled offer by offer and in a batch, placed again over the same outputs, then cancelled whole', async () => {
    const seller = await newSeller(m, 'p2wpkh', 'client-upkeep-seller', 1);
    const bidderW = makeWallet('p2wpkh', 'client-upkeep-bidder');
    await m.fund(bidderW, 200_000);
    await m.sync();
    const calls = { sign: 0 };
    const bidder = await clientFor(bidderW, calls);
    const targets = [{ scope: 'asset' as const, asset: seller.asset }];
    const placed = await bidder.placeBids({ price_sats: 20_000, slots: 2, targets, expires_at: expires(), fee_rate: 2 });
    await m.mine();
    await m.sync();

    const p = await bidder.offers.placement(placed.placement_id);
    assert.deepEqual([p.placement_id, p.bidder, p.price_sats, p.slot_count, p.offer_count], [placed.placement_id, bidderW.address, 20_000, 2, 2]);
    const [a, b] = p.funding_slots.map((s) => ({ id: s.offer_ids[0]!, outpoint: { txid: s.txid, vout: s.vout } }));
    assert.ok(a && b);

    assert.deepEqual(await bidder.offers.cancel(a.id), [{ offer_id: a.id, ok: true, status: 'cancelled' }]);
    const review = await bidder.offers.review([a.id]);
    assert.deepEqual(review.coins, [{ outpoint: a.outpoint, stillCommitted: false }], 'its output backs no live offer');
    // An output still backing a live offer cannot back another placement.
    await assert.rejects(bidder.offers.placeOver({ bids: [b.outpoint], targets, expires_at: expires() }), refusedWith(409, 'state_changed'));
    // Reviewing a live offer is refused: only cancelled offers have freed anything.
    await assert.rejects(bidder.offers.review([b.id]), refusedWith(409, 'state_changed'));

    const batch = await bidder.offers.cancelMany([b.id, a.id]);
    assert.deepEqual(batch.map((r) => [r.offer_id, r.ok, r.code ?? null]), [[b.id, true, null], [a.id, false, 'state_changed']]);

    // The outputs are still the bidder's, exactly the price: bid over them again without signing anything.
    const signed = calls.sign;
    const again = await bidder.offers.placeOver({ bids: [a.outpoint, b.outpoint], targets, expires_at: expires() });
    assert.notEqual(again.placement_id, placed.placement_id);
    assert.equal(again.price_sats, 20_000);
    assert.deepEqual(again.funding_slots.map((s) => `${s.txid}:${s.vout}`).sort(), [a.outpoint, b.outpoint].map((o) => `${o.txid}:${o.vout}`).sort());
    assert.equal(calls.sign, signed, 'nothing signed');
    await m.ctx.cache.clear();
    const live = await m.call('GET', `/v1/assets/${seller.asset}/best-offer`, null);
    assert.equal(live.body.result.best_offer_sats, 20_000);

    const stranger = await clientFor(makeWallet('p2wpkh', 'client-upkeep-stranger'));
    await assert.rejects(stranger.offers.cancelPlacement(again.placement_id), refusedWith(404, 'not_found'));
    const all = await bidder.offers.cancelPlacement(again.placement_id);
    assert.deepEqual(all.map((r) => r.ok), [true, true]);
    await m.ctx.cache.clear();
    const none = await m.call('GET', `/v1/assets/${seller.asset}/best-offer`, null);
    assert.deepEqual([none.body.result.best_offer_sats, none.body.result.live_offers], [null, 0]);
  });

  void it('a counter withdrawn; an authorization cancelled by the bidder: the selection refuses it and the accept is refused unsigned', async () => {
    const seller = await newSeller(m, 'p2wpkh', 'client-upkeep-seller2', 1);
    const at = await m.attachDirect(seller.w, seller.asset, '1');
    const bidderW = makeWallet('p2wpkh', 'client-upkeep-bidder2');
    await m.fund(bidderW, 300_000);
    await m.mine(2);
    await m.sync();
    const bidder = await clientFor(bidderW);
    const placed = await bidder.placeBids({ price_sats: 21_000, slots: 1, targets: [{ scope: 'asset', asset: seller.asset }], expires_at: expires(), fee_rate: 2 });
    await m.mine();
    await m.sync();
    const slot = placed.funding_slots[0]!;

    const sellerCalls = { sign: 0 };
    const sellerClient = await clientFor(seller.w, sellerCalls);
    const c = await sellerClient.counter({ offer_id: slot.offer_ids[0]!, asset_outpoint: at, price_sats: 24_000, expires_at: expires() });
    await assert.rejects(bidder.offers.withdrawCounter(c.id), refusedWith(404, 'not_found'), 'only its seller withdraws a counter');
    assert.deepEqual(await sellerClient.offers.withdrawCounter(c.id), { id: c.id, status: 'withdrawn' });
    const counters = [];
    for await (const r of bidder.counters()) counters.push(r);
    assert.deepEqual(counters, [], 'gone from the bidder\'s counters');
    await assert.rejects(sellerClient.offers.withdrawCounter(c.id), refusedWith(409, 'state_changed'));

    const active = await bidder.authorizeExact({ offer_id: slot.offer_ids[0]!, slot: { txid: slot.txid, vout: slot.vout }, price_sats: 21_000, delivery_mode: 'detached', delivery_address: bidderW.address, target_outpoint: at, fee_rate: 1 });
    const id = active.authorization_id;
    const ok = await sellerClient.offers.validateSelection([id, 'ea_nope']);
    assert.deepEqual(ok.map((r) => [r.authorization_id, r.ok, r.code]), [[id, true, null], ['ea_nope', false, 'not_found']]);

    await assert.rejects(sellerClient.offers.cancelAuthorization(id), refusedWith(404, 'not_found'), 'only its bidder cancels it');
    const cancelled = await bidder.offers.cancelAuthorization(id);
    assert.deepEqual([cancelled.authorization_id, cancelled.status], [id, 'retired']);
    await assert.rejects(bidder.offers.cancelAuthorization(id), refusedWith(409, 'state_changed'));
    const [refused] = await sellerClient.offers.validateSelection([id]);
    assert.deepEqual([refused!.ok, refused!.code], [false, 'offer_selection_unavailable']);
    await assert.rejects(sellerClient.acceptExact({ authorization_id: id, target_outpoint: at, price_sats: 21_000 }), (e) => e instanceof MarketError && (e.status === 409 || e.status === 410 || e.status === 404), 'the accept is refused');
    assert.equal(sellerCalls.sign, 0, 'the seller\'s wallet was never asked');
  });
});

routeCoverage(import.meta.url);
