/**
 * Collection (policy) offers with real keys on the devnet: the anchor pool, a collection and a
 * trait offer placed, a seller's accept co-signed and relayed as a TRUC package, the unit at the
 * bidder's delivery address after mining, siblings retired, reads and the book.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { openMarket, type Market } from '../helpers/market.js';
import { newSeller, type Seller } from '../helpers/listing.js';
import { newBidder } from '../offers/exact-helpers.js';
import { acceptQuote, fillPool, placePolicy } from './policy-helpers.js';
import { eventId } from '../../src/trade/event-rows.js';
import { assertLogReplaysFeeds } from '../helpers/event-log.js';

let m: Market;
let seller: Seller;

before(async () => {
  m = await openMarket({ ANCHOR_POOL_SIZE: '3' });
  seller = await newSeller(m, 'p2wpkh', 'po-seller', 5);
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'cards', name: 'Cards' }], artists: [], assets: [{ asset: seller.asset, collection: 'cards', max_supply_units: 5, issued_year: 2016 }] });
  await fillPool(m);
});
after(async () => m?.close());

describe('collection offers', () => {
  void it('places a collection and a trait alternative, and a seller fills the best one with an attached unit', async () => {
    const cap = await m.call('GET', '/v1/policy-offers/capacity', null);
    assert.equal(cap.status, 200, JSON.stringify(cap.body));
    assert.equal(cap.body.result.free, 3);
    const b = await newBidder(m, [200_000], 'p2tr');
    const { pf, set } = await placePolicy(m, b.w, b.token, [
      { scope: 'collection', collection: 'cards', price_sats: 40_000 },
      { scope: 'collection', collection: 'cards', max_supply_units: 300, issued_year: 2016, price_sats: 50_000 },
    ]);
    assert.equal(set.status, 'open');
    assert.equal(set.offers.length, 2);
    assert.deepEqual(set.offers.map((o: any) => o.kind), ['collection', 'trait']);
    assert.equal(set.escrow_value_sats, 50_330);

    const asset = await m.call('GET', `/v1/assets/${seller.asset}/policy-offers`, null);
    assert.equal(asset.status, 200, JSON.stringify(asset.body));
    assert.deepEqual(asset.body.result.map((o: any) => o.price_sats), [50_000, 40_000]);
    const best = await m.call('GET', `/v1/assets/${seller.asset}/best-offer`, null);
    assert.equal(best.status, 200, JSON.stringify(best.body));
    assert.equal(best.body.result.best_offer_sats, 50_000);
    assert.equal(best.body.result.offer.kind, 'trait');
    assert.equal(best.body.result.live_offers, 2);

    const book = await m.call('GET', '/v1/collections/cards/book', null);
    assert.equal(book.status, 200, JSON.stringify(book.body));
    assert.equal(book.body.result.top_collection_offer_sats, 50_000);
    const levels = book.body.result.offer_levels ?? book.body.result.bids?.offer_levels;
    assert.deepEqual(levels.map((l: any) => [l.kind, l.price_sats, l.funded_slots]), [['trait', 50_000, 1], ['collection', 40_000, 1]]);
    const rows = book.body.result.offers ?? book.body.result.bids?.offers;
    assert.deepEqual(rows.map((o: any) => [o.kind, o.bid_txid, o.funding_slot_id]), [['trait', pf.parent.expected_txid, set.funding_set_id], ['collection', pf.parent.expected_txid, set.funding_set_id]]);
    const stats = await m.call('GET', '/v1/analytics', null);
    assert.equal(stats.status, 200, JSON.stringify(stats.body));
    assert.equal(stats.body.result.market.open_offers, 1, 'one escrow backs both alternatives: one open offer');
    assert.equal(stats.body.result.market.bidders, 1);

    const unit = await m.attachDirect(seller.w, seller.asset, '1');
    await m.mine();
    await m.sync();
    const { q, signed } = await acceptQuote(m, seller.w, seller.token, pf.parent.expected_txid, unit);
    assert.equal(q.status, 200, JSON.stringify(q.body));
    assert.equal(q.body.result.price_sats, 50_000);
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: q.body.result.accept_id, psbt_hex: signed });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.settlement_state, 'relayed');
    await m.mine();
    await m.sync();
    const held = await m.devnet.chain.counterparty.getUtxoBalances(`${r.body.result.txid}:0`);
    assert.deepEqual(held.map((h) => [h.asset, h.quantity_raw]), [[seller.asset, '1']]);
    const mine = await m.call('GET', `/v1/address/${b.w.address}/policy-offers`, b.token);
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.deepEqual(mine.body.result.map((o: any) => o.status).sort(), ['filled', 'retired']);

    // The public feed: the filled collection offer ends `filled` (its sale names neither the offer
    // nor its bidder), its sibling `superseded`; the ordered log replays to the same feeds.
    await m.ctx.cache.clear();
    const feed = await m.call('GET', '/v1/events?kind=offers&limit=100', null);
    assert.equal(feed.status, 200, JSON.stringify(feed.body));
    const [sibling, filled] = set.offers.map((o: any) => eventId('offer_ended', o.id));
    const endings = feed.body.result.filter((e: any) => e.kind === 'collection_offer_ended' && e.bidder === b.w.address);
    assert.deepEqual(Object.fromEntries(endings.map((e: any) => [e.event_id, e.reason])), { [filled]: 'filled', [sibling]: 'superseded' });
    await assertLogReplaysFeeds(m);
  });
});
