/**
 * The order book and offer targets over listings made through the real seller flow on the
 * devnet (real keys, attach and listing signatures, indexer activation), with the balance view
 * supplying longnames and divisibility.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';
import { openMarket, type Market } from '../helpers/market.js';
import { listThroughSeller } from '../helpers/listing.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';

let m: Market;
const alice = makeWallet('p2wpkh', 'book-live-alice');
const bob = makeWallet('p2tr', 'book-live-bob');
let gold = '';
const ids: Record<string, string> = {};
const utxos: Record<string, { txid: string; vout: number }> = {};
const expiry: Record<string, number> = {};

const book = async () => {
  const r = await m.call('GET', '/v1/collections/live/book', null);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result;
};

async function list(key: string, w: TestWallet, token: string, asset: string, price: number, quantityRaw = '1') {
  const l = await listThroughSeller(m, w, token, asset, { price, quantityRaw, ttlSeconds: 7 * 86_400 });
  ids[key] = l.listingId;
  utxos[key] = l.utxo;
  expiry[key] = Math.floor(m.clock.now() / 1000) + 7 * 86_400;
  m.clock.advance(1000); // distinct created_at: the book orders a level by age
}

before(async () => {
  m = await openMarket();
  for (const w of [alice, alice, alice, bob]) await m.fund(w, 100_000); // one confirmed coin per attach
  await m.devnet.issueAsset({ asset: 'LIVEONE', issuer: alice.address, quantity_raw: '1', divisible: false });
  await m.devnet.issueAsset({ asset: 'LIVETWO', issuer: bob.address, quantity_raw: '300000000', divisible: true });
  await m.devnet.issueAsset({ asset: 'LIVETHREE', issuer: alice.address, quantity_raw: '5', divisible: false });
  gold = (await m.devnet.issueAsset({ longname: 'LIVEONE.gold', issuer: alice.address, quantity_raw: '1', divisible: false })).asset;
  await importCatalog(m.ctx.store.db, {
    collections: [{ slug: 'live', name: 'Live cards' }, { slug: 'other', name: 'Other' }],
    artists: [],
    assets: [
      { asset: 'LIVEONE', collection: 'live', artist: 'Rare Scrilla', issued_year: 2016, series: 1, max_supply_units: 1, media_kind: 'image', protocol_subtype: 'classic' },
      { asset: 'LIVETWO', collection: 'live', artist: 'rare scrilla ', issued_year: 2017, series: 2, max_supply_units: 3, media_kind: 'video' },
      { asset: 'LIVETHREE', collection: 'live', artist: 'Someone', issued_year: 2016, max_supply_units: 5 },
      { asset: gold, collection: 'live', also_in: ['other'], issued_year: 2018, media_kind: 'svg' },
    ],
  });
  await m.sync(); // the balance view reads the new catalogue assets with the next block
  const ta = await m.signIn(alice);
  const tb = await m.signIn(bob);
  await list('one', alice, ta, 'LIVEONE', 20_000);
  await list('two', bob, tb, 'LIVETWO', 20_000, '100000000');
  await list('three', alice, ta, 'LIVETHREE', 15_000, '2');
  await list('gold', alice, ta, gold, 30_000);
});
after(async () => m.close());

void test('pending listings (attach not yet confirmed) are not in the book', async () => {
  await m.sync();
  const b = await book();
  assert.deepEqual(b.asks, []);
  assert.equal(b.listings_truncated, false);
});

void test('after the indexer activates them: asks by price, oldest first within a level, exact public rows', async () => {
  await m.mine();
  await m.sync();
  const b = await book();
  assert.deepEqual(
    b.asks.map((a: any) => [a.price_sats, a.depth, a.listings.map((l: any) => l.id)]),
    [
      [15_000, 1, [ids.three]],
      [20_000, 2, [ids.one, ids.two]],
      [30_000, 1, [ids.gold]],
    ],
  );
  const [one, two] = b.asks[1].listings;
  assert.deepEqual(one, {
    id: ids.one,
    asset: 'LIVEONE',
    asset_longname: null,
    seller: alice.address,
    utxo_txid: utxos.one!.txid,
    utxo_vout: 0,
    quantity_raw: '1',
    price_sats: 20_000,
    created_at: one.created_at,
    protocol_subtype: 'plain',
    media_kind: 'image',
    expires_at: expiry.one,
  });
  assert.ok(one.created_at < two.created_at);
  assert.deepEqual([two.seller, two.quantity_raw, two.media_kind, two.protocol_subtype], [bob.address, '100000000', 'video', 'plain']);
  assert.equal(b.asks[2].listings[0].asset_longname, 'LIVEONE.gold', 'the longname comes from Counterparty via the balance view');
  assert.deepEqual([b.offer_levels, b.offers, b.top_collection_offer_sats, b.best_offer_sats, b.offer_levels_truncated, b.offers_truncated], [[], [], null, null, false, false]);
  assert.deepEqual(b.fills, []);
  assert.doesNotMatch(JSON.stringify(b), /70736274ff/, 'never a PSBT');
});

void test('offer targets: only one-unit listings (1 raw indivisible, 10^8 raw divisible), filtered by the policy predicate', async () => {
  const get = async (q = '') => {
    const r = await m.call('GET', `/v1/collections/live/offer-targets${q}`, null);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const all = await get();
  assert.deepEqual(all.result.map((l: any) => l.id), [ids.one, ids.two, ids.gold], 'LIVETHREE lists 2 units: no collection offer can take it');
  assert.equal(all.result_count, 3);
  assert.equal(all.matching_assets, 4);
  assert.equal('expires_at' in all.result[0], false);
  const scrilla = await get('?artist=%20RARE%20SCRILLA');
  assert.deepEqual([scrilla.result.map((l: any) => l.asset), scrilla.matching_assets], [['LIVEONE', 'LIVETWO'], 2]);
  const y2016 = await get('?issued_year=2016');
  assert.deepEqual([y2016.result.map((l: any) => l.asset), y2016.matching_assets], [['LIVEONE'], 2], 'LIVETHREE matches but is not a one-unit listing');
  const small = await get('?max_supply_units=3&min_supply_units=2');
  assert.deepEqual([small.result.map((l: any) => l.asset), small.matching_assets], [['LIVETWO'], 1]);
  const limited = await get('?limit=1');
  assert.deepEqual(limited.result.map((l: any) => l.id), [ids.one]);
  assert.equal(limited.result_count, 1);
  const other = await m.call('GET', '/v1/collections/other/offer-targets', null);
  assert.deepEqual([other.body.result.map((l: any) => l.asset), other.body.matching_assets], [[gold], 1], 'a secondary membership counts');
});

void test('a reorg that reopens the attaches withdraws the listings: they leave the book', async () => {
  await m.devnet.reorg(1); // the attaches go back to the mempool: listings end invalid (withdrawn)
  await m.sync();
  const b = await book();
  assert.deepEqual(b.asks, [], 'every listing was withdrawn by the reorg');
});
