/**
 * A sale seen from the whole market, end to end with real keys on the devnet: two units of a
 * catalogue collection listed through the seller flow, one bought with detached delivery to a
 * legacy address, another with attached delivery. Before the block: the sold ask leaves the
 * book, the sale is in the public feed and the fills unconfirmed. After mining and a sync: the
 * Counterparty balances are at the buyers, the fills and the owner feeds confirm, the holders
 * and the analytics count the sale.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeWallet } from '../helpers/wallets.js';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller, type LiveListing, type Seller } from '../helpers/listing.js';
import { complete, heldAt, heldOn, newBuyer, quoteOk, signQuote, type Buyer } from '../helpers/checkout.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';

let m: Market;
let alice: Seller;
let bob: Seller;
let carol: Buyer;
let dave: Buyer;
const delivery = makeWallet('p2pkh', 'after-sale-delivery');
const listed: Record<string, LiveListing> = {};

const get = async (url: string, token: string | null = null) => {
  const r = await m.call('GET', url, token);
  assert.equal(r.status, 200, `${url}: ${JSON.stringify(r.body)}`);
  return r.body;
};
const asks = async () => ((await get('/v1/collections/after-sale/book')).result.asks as Array<{ listings: Array<{ id: string }> }>).flatMap((a) => a.listings.map((l) => l.id));
const sales = async () => ((await get('/v1/events?kind=sales')).result as Array<Record<string, any>>).map((e) => [e.kind, e.asset, e.buyer, e.seller, e.price_sats, e.confirmed_at !== null]);

before(async () => {
  m = await openMarket();
  alice = await newSeller(m, 'p2wpkh', 'after-sale-alice');
  bob = await newSeller(m, 'p2tr', 'after-sale-bob');
  await importCatalog(m.ctx.store.db, {
    collections: [{ slug: 'after-sale', name: 'After the sale' }],
    artists: [],
    assets: [alice.asset, bob.asset].map((asset) => ({ asset, collection: 'after-sale', max_supply_units: 1, issued_year: 2024, media_kind: 'image' as const })),
  });
  listed.a = await listUnit(m, alice, 40_000);
  listed.b = await listUnit(m, bob, 25_000);
  carol = await newBuyer(m, 'p2tr', 'after-sale-carol');
  dave = await newBuyer(m, 'p2wpkh', 'after-sale-dave');
  await m.sync();
});
after(async () => m.close());

void test('the book, the feeds, the fills, the holders and the analytics follow two purchases in both delivery modes', async () => {
  assert.deepEqual(new Set(await asks()), new Set([listed.a!.id, listed.b!.id]));

  // carol (P2TR) buys alice's unit, detached to a legacy address; dave buys bob's, attached.
  const q1 = await quoteOk(m, carol, { lines: [{ listing_id: listed.a!.id }], delivery_address: delivery.address });
  const r1 = await complete(m, carol, q1.id, signQuote(q1, carol.w));
  assert.equal(r1.status, 200, JSON.stringify(r1.body));
  const q2 = await quoteOk(m, dave, { lines: [{ asset: bob.asset, quantity: 1 }], delivery_mode: 'attached' });
  const r2 = await complete(m, dave, q2.id, signQuote(q2, dave.w));
  assert.equal(r2.status, 200, JSON.stringify(r2.body));
  await m.sync(); // flushes the shared cache: the reads below are fresh

  // In flight: off the book at once, a sale in the public feed, unconfirmed.
  assert.deepEqual(await asks(), []);
  assert.deepEqual(new Set((await sales()).map((s) => JSON.stringify(s))), new Set([
    JSON.stringify(['sale', alice.asset, delivery.address, alice.w.address, 40_000, false]),
    JSON.stringify(['sale', bob.asset, dave.w.address, bob.w.address, 25_000, false]),
  ]));
  const pendingFills = (await get(`/v1/fills?address=${alice.w.address}&role=seller`)).result as Array<Record<string, any>>;
  assert.deepEqual(pendingFills.map((f) => [f.txid, f.buyer, f.delivery_mode, f.confirmed_at]), [[q1.expected_txid, delivery.address, 'detached', null]]);
  assert.deepEqual(((await get(`/v1/address/${alice.w.address}/events`, alice.token)).result as Array<Record<string, any>>).map((e) => [e.kind, e.listing_id, e.txid]), [['listing_filled', listed.a!.id, q1.expected_txid]]);

  await m.mine();
  await m.sync();

  // Counterparty: the detached unit is an address balance of the delivery address; the attached one sits on dave's out 0.
  assert.equal(await heldAt(m, delivery.address, alice.asset), 1n);
  assert.equal(await heldOn(m, `${q2.expected_txid}:0`, bob.asset), 1n);
  assert.equal((await m.ctx.chain.bitcoin.getTxOut(q2.expected_txid, 0))?.address, dave.w.address);

  assert.deepEqual(new Set((await sales()).map((s) => JSON.stringify(s))), new Set([
    JSON.stringify(['sale', alice.asset, delivery.address, alice.w.address, 40_000, true]),
    JSON.stringify(['sale', bob.asset, dave.w.address, bob.w.address, 25_000, true]),
  ]));
  const fills = (await get('/v1/fills?collection=after-sale&status=confirmed')).result as Array<Record<string, any>>;
  assert.deepEqual(new Set(fills.map((f) => f.txid)), new Set([q1.expected_txid, q2.expected_txid]));
  assert.ok(fills.every((f) => typeof f.block_index === 'number' && f.platform_fee_sats > 0));

  const sellerFeed = ((await get(`/v1/address/${alice.w.address}/events`, alice.token)).result as Array<Record<string, any>>).map((e) => e.kind);
  assert.deepEqual(new Set(sellerFeed), new Set(['listing_filled', 'sale_confirmed']));
  const carolFeed = ((await get(`/v1/address/${carol.w.address}/events`, carol.token)).result as unknown[]);
  assert.deepEqual(carolFeed, [], 'purchase_confirmed belongs to the delivery address, not the payer');
  const daveFeed = ((await get(`/v1/address/${dave.w.address}/events`, dave.token)).result as Array<Record<string, any>>).map((e) => [e.kind, e.role, e.txid]);
  assert.deepEqual(daveFeed, [['purchase_confirmed', 'buyer', q2.expected_txid]]);

  const book = (await get('/v1/collections/after-sale/book')).result;
  assert.deepEqual(new Set((book.fills as Array<{ txid: string }>).map((f) => f.txid)), new Set([q1.expected_txid, q2.expected_txid]));

  const holders = (await get('/v1/collections/after-sale/holders')).result;
  const byAddress = Object.fromEntries((holders.holders as Array<Record<string, any>>).map((h) => [h.address, h.edition_units]));
  assert.equal(byAddress[delivery.address], 1, 'the detached unit counts for the delivery address');
  assert.equal(byAddress[dave.w.address], 1, 'the attached unit counts for the owner of its UTXO');
  assert.equal(byAddress[alice.w.address], undefined);

  const analytics = (await get('/v1/analytics')).result;
  assert.deepEqual([analytics.sales.volume_sats, analytics.sales.sales, analytics.sales.transactions], [65_000, 2, 2]);
  assert.equal(analytics.market.listings, 0);
});
