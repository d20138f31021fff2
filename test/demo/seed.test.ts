/**
 * The demo seed on a fresh devnet store: the catalogue, funded wallets, issued assets, live
 * listings made through the market's own services with the demo keys, then a few purchases
 * through the market's own checkout, confirmed, so the public reads show trading history; a
 * second run does nothing, and a run that crashed mid-purchase finishes without buying twice.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { broadcastFaults } from '../helpers/chain.js';
import { seedDemoMarket, demoWallets } from '../../src/demo/seed.js';
import { DEMO_LISTINGS } from '../../src/demo/seed-listings.js';
import { DEMO_PURCHASES } from '../../src/demo/seed-sales.js';
import { demoOwnerOf } from '../../src/demo/wallets.js';
import { setMeta } from '../../src/store/meta.js';
import demoCatalog from '../../src/demo/catalog.json' with { type: 'json' };

let t: TestApp;
before(async () => {
  t = await testApp();
  assert.equal(await seedDemoMarket(t.ctx, t.ctx.devnet!), true);
});
after(async () => t.close());

const get = async (url: string) => {
  const r = await t.app.inject({ method: 'GET', url });
  assert.equal(r.statusCode, 200, r.body);
  return JSON.parse(r.body) as { result: any };
};

const SOLD = new Set(DEMO_PURCHASES.flatMap((p) => p.assets));
const LIVE = DEMO_LISTINGS.filter((l) => !SOLD.has(l.asset));
const addressOf = (label: string) => demoWallets().find((w) => w.label === label)!.address;
/** Every demo sale as [asset, seller, buyer (delivery), price, delivery mode], sorted. */
const PLANNED_SALES = DEMO_PURCHASES.flatMap((p) =>
  p.assets.map((asset) => [asset, demoOwnerOf(asset).address, addressOf(p.buyer), DEMO_LISTINGS.find((l) => l.asset === asset)!.price_sats, p.delivery_mode]),
).sort();
const collectionsOf = (asset: string) => {
  const a = demoCatalog.assets.find((x) => x.asset === asset)! as { collection: string; also_in?: string[] };
  return [a.collection, ...(a.also_in ?? [])];
};

/** [listed, floor] per key from the plan's live (unsold) listings and the catalogue's memberships. */
function expected(keyOf: (a: (typeof demoCatalog.assets)[number]) => string[]): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const l of LIVE) {
    const a = demoCatalog.assets.find((x) => x.asset === l.asset)!;
    for (const k of new Set(keyOf(a))) {
      const [n, floor] = out.get(k) ?? [0, Infinity];
      out.set(k, [n + 1, Math.min(floor, l.price_sats)]);
    }
  }
  return out;
}

void test('collections show the unsold listings as public, two each after the sales, with their floors', async () => {
  const rows = (await get('/v1/collections')).result as Array<{ slug: string; listed: number; floor_sats: number | null }>;
  const want = expected((a) => collectionsOf(a.asset));
  assert.equal(rows.length, demoCatalog.collections.length);
  for (const c of rows) assert.deepEqual([c.slug, c.listed, c.floor_sats], [c.slug, ...want.get(c.slug)!], c.slug);
  const by = Object.fromEntries(rows.map((c) => [c.slug, [c.listed, c.floor_sats]]));
  assert.deepEqual(by, { 'rare-pepes': [2, 85_000], 'fake-rares': [2, 150_000], 'spells-of-genesis': [2, 20_000] });
});

void test('artists show their listed counts and floors', async () => {
  const want = expected((a) => [a.artist]);
  for (const [artist, figures] of want) {
    const key = artist.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const a = (await get(`/v1/artists/${key}`)).result;
    assert.deepEqual([a.listed, a.floor_sats], figures, artist);
  }
  const listed = (await get('/v1/artists/hodl-ashby/assets?listed=1')).result.map((r: any) => r.asset);
  assert.deepEqual(listed, ['FAKEASF', 'FAKEDREAM'], 'FAKEORACLE was sold');
});

void test('the listings are real: active or sold, signed by both wallet families, reused and attached units, prices in range', async () => {
  const db = t.ctx.store.db;
  const listings = await db.selectFrom('listings').innerJoin('listing_drafts', 'listing_drafts.id', 'listings.draft_id')
    .select(['listings.asset', 'listings.seller', 'listings.state', 'listings.price_sats', 'listings.utxo_txid', 'listings.protocol_subtype', 'listing_drafts.mode', 'listing_drafts.status']).execute();
  assert.equal(listings.length, DEMO_LISTINGS.length);
  assert.ok(listings.every((l) => l.state === (SOLD.has(l.asset) ? 'sold' : 'active') && l.status === 'completed'), JSON.stringify(listings));
  assert.ok(listings.every((l) => l.price_sats >= 20_000 && l.price_sats <= 2_000_000));
  const [alice, bob, carol] = demoWallets();
  assert.match(bob!.address, /^bcrt1p/);
  assert.match(alice!.address, /^bcrt1q/);
  assert.deepEqual(new Set(listings.map((l) => l.seller)), new Set([alice!.address, bob!.address, carol!.address]));
  assert.deepEqual(listings.filter((l) => l.mode === 'reuse').map((l) => l.asset).sort(), ['PEPEDIAMOND', 'SOGDRAGON']);
  assert.equal(listings.filter((l) => l.mode === 'attach').length, DEMO_LISTINGS.length - 2);
  assert.deepEqual(listings.filter((l) => l.protocol_subtype === 'cosigned').map((l) => [l.asset, l.seller]).sort(), [['FAKEASF', bob!.address], ['PEPEMOON', bob!.address]], 'co-signed listings beside plain ones');
  // Counterparty agrees: every live listed outpoint holds exactly its unit, confirmed; a sold one is spent.
  for (const l of listings) {
    const held = await t.ctx.chain.counterparty.getUtxoBalances(`${l.utxo_txid}:0`);
    const out = await t.ctx.chain.bitcoin.getTxOut(l.utxo_txid, 0, false);
    if (SOLD.has(l.asset)) {
      assert.deepEqual([held, out], [[], null], l.asset);
    } else {
      assert.deepEqual(held.map((b) => [b.asset, b.quantity_raw]), [[l.asset, '1']], l.asset);
      assert.ok(out!.confirmations >= 1);
    }
  }
  const live = await db.selectFrom('settlements').select('state').where('state', 'in', ['journaled', 'relayed']).execute();
  assert.deepEqual(live, [], 'every attach confirmed');
});

void test('GET /v1/fills shows the sales confirmed: a detached and an attached single, a two-seller cart in one transaction', async () => {
  const all = (await get('/v1/fills')).result as Array<Record<string, any>>;
  assert.deepEqual((await get('/v1/fills?status=confirmed')).result, all, 'none pending');
  assert.deepEqual(all.map((f) => [f.asset, f.seller, f.buyer, f.price_sats, f.delivery_mode]).sort(), PLANNED_SALES);
  const tip = (await t.ctx.indexer.cursor())!;
  // One block confirmed every sale (the collection-offer phase mined after it).
  assert.ok(all.every((f) => f.kind === 'listing' && f.block_index === all[0]!.block_index && f.block_index <= tip.height && f.confirmed_at !== null && f.platform_fee_sats > 0), JSON.stringify(all));
  const txOf = (asset: string) => all.find((f) => f.asset === asset)!.txid as string;
  assert.equal(new Set(all.map((f) => f.txid)).size, DEMO_PURCHASES.length, 'one transaction per purchase');
  assert.equal(txOf('PEPECASH'), txOf('PEPEGENESIS'), "bob's cart settles both units together");
  // Each fill is the demo listing of its asset.
  const listings = await t.ctx.store.db.selectFrom('listings').select(['id', 'asset']).execute();
  for (const f of all) assert.equal(f.ref_id, listings.find((l) => l.asset === f.asset)!.id, f.asset);

  // Counterparty agrees where the units went: detached to an address balance, attached on out 0 of alice.
  const heldAt = async (label: string, asset: string) =>
    (await t.ctx.chain.counterparty.getAddressBalances(addressOf(label))).filter((b) => b.asset === asset && b.utxo === null).reduce((n, b) => n + BigInt(b.quantity_raw), 0n);
  assert.equal(await heldAt('carol', 'SOGWATER'), 1n);
  assert.equal(await heldAt('bob', 'PEPECASH'), 1n);
  assert.equal(await heldAt('bob', 'PEPEGENESIS'), 1n);
  const attached = await t.ctx.chain.counterparty.getUtxoBalances(`${txOf('FAKEORACLE')}:0`);
  assert.deepEqual(attached.map((b) => [b.asset, b.quantity_raw]), [['FAKEORACLE', '1']]);
  assert.equal((await t.ctx.chain.bitcoin.getTxOut(txOf('FAKEORACLE'), 0, false))?.address, addressOf('alice'));
  assert.equal(await heldAt('alice', 'FAKEORACLE'), 0n, 'attached, not detached');
});

void test('GET /v1/events?kind=sales shows every sale, confirmed', async () => {
  const sales = (await get('/v1/events?kind=sales')).result as Array<Record<string, any>>;
  assert.deepEqual(sales.map((e) => [e.asset, e.seller, e.buyer, e.price_sats]).sort(), PLANNED_SALES.map((x) => x.slice(0, 4)));
  assert.ok(sales.every((e) => e.kind === 'sale' && e.fill_kind === 'listing' && e.confirmed_at !== null && e.txid), JSON.stringify(sales));
  const fills = (await get('/v1/fills')).result as Array<{ txid: string }>;
  assert.deepEqual(new Set(sales.map((e) => e.txid)), new Set(fills.map((f) => f.txid)));
});

void test('GET /v1/analytics counts the sales and the listings left', async () => {
  const a = (await get('/v1/analytics')).result;
  const volume = PLANNED_SALES.reduce((n, x) => n + (x[3] as number), 0);
  assert.equal(volume, 1_352_500);
  assert.deepEqual(a.sales, { volume_sats: volume, sales: 4, transactions: 3, buyers: 3, sellers: 3 });
  assert.deepEqual(a.sale_types.find((r: any) => r.kind === 'listing'), { kind: 'listing', volume_sats: volume, sales: 4 });
  assert.deepEqual(a.top_sales.map((r: any) => r.asset), ['PEPEGENESIS', 'PEPECASH', 'FAKEORACLE', 'SOGWATER']);
  assert.equal(a.market.listings, LIVE.length);
  assert.equal(a.market.asking_value_sats, LIVE.reduce((n, l) => n + l.price_sats, 0));
});

void test("every collection's book still has a live listing and shows its own sales", async () => {
  for (const c of demoCatalog.collections) {
    const book = (await get(`/v1/collections/${c.slug}/book`)).result;
    const asks = (book.asks as Array<{ listings: Array<{ asset: string }> }>).flatMap((a) => a.listings.map((l) => l.asset));
    assert.ok(asks.length >= 1, `${c.slug} has no live listing`);
    assert.deepEqual(asks.sort(), LIVE.filter((l) => collectionsOf(l.asset).includes(c.slug)).map((l) => l.asset).sort(), c.slug);
    const fills = (book.fills as Array<{ asset: string; confirmed_at: number | null }>);
    assert.deepEqual(fills.map((f) => f.asset).sort(), [...SOLD].filter((a) => collectionsOf(a).includes(c.slug)).sort(), c.slug);
    assert.ok(fills.every((f) => f.confirmed_at !== null));
  }
});

void test('a restart with a seeded store does nothing again; a store seeded before a later phase gets none of the earlier twice', async () => {
  const db = t.ctx.store.db;
  const tip = await t.ctx.chain.bitcoin.getTip();
  const counts = async () => ({
    listings: (await db.selectFrom('listings').select('id').execute()).length,
    fills: (await db.selectFrom('fills').select(['id', 'state']).execute()).map((f) => f.state),
    quotes: (await db.selectFrom('checkout_quotes').select('status').execute()).map((q) => q.status),
  });
  const before = await counts();
  assert.deepEqual(before, { listings: DEMO_LISTINGS.length, fills: [...SOLD].map(() => 'confirmed'), quotes: DEMO_PURCHASES.map(() => 'completed') });
  assert.equal(await seedDemoMarket(t.ctx, t.ctx.devnet!), false);
  assert.deepEqual(await t.ctx.chain.bitcoin.getTip(), tip);
  assert.deepEqual(await counts(), before);
  // A crash after listing but before the marker: the rerun finds every draft listed.
  await db.deleteFrom('meta').where('key', '=', 'demo_listed').execute();
  assert.equal(await seedDemoMarket(t.ctx, t.ctx.devnet!), true);
  assert.deepEqual(await t.ctx.chain.bitcoin.getTip(), tip, 'no block mined');
  assert.deepEqual(await counts(), before);
  // A crash after the sales confirmed but before their marker: nothing is bought again, no block mined.
  await db.deleteFrom('meta').where('key', '=', 'demo_sales').execute();
  assert.equal(await seedDemoMarket(t.ctx, t.ctx.devnet!), true);
  assert.deepEqual(await t.ctx.chain.bitcoin.getTip(), tip, 'no block mined');
  assert.deepEqual(await counts(), before);
  assert.equal(((await get('/v1/fills')).result as unknown[]).length, SOLD.size, 'no new fills');
});

void test('a crash mid-purchase (a completion journaled, its broadcast lost): the rerun relays it, buys the rest once, all confirm', async () => {
  const faults = broadcastFaults();
  const t2 = await testApp({ wrapChain: faults.wrap });
  try {
    const db = t2.ctx.store.db;
    // Seed up to the listings, then lose the broadcast of the first purchase.
    await setMeta(db, 'demo_sales', 'later');
    assert.equal(await seedDemoMarket(t2.ctx, t2.ctx.devnet!), true);
    await db.deleteFrom('meta').where('key', '=', 'demo_sales').execute();
    faults.failNext(1, 'before');
    await assert.rejects(seedDemoMarket(t2.ctx, t2.ctx.devnet!), (e: { code?: string }) => e.code === 'broadcast_unknown');
    assert.equal(faults.failed, 1);
    const settlements = () => db.selectFrom('settlements').select(['txid', 'state']).where('kind', '=', 'checkout').execute();
    const [lost] = await settlements();
    assert.deepEqual((await settlements()).map((s) => s.state), ['journaled']);
    assert.equal(await t2.ctx.chain.bitcoin.getMempoolEntry(lost!.txid), null, 'the node never saw it');
    const fills = () => db.selectFrom('fills').select(['asset', 'state', 'txid']).orderBy('asset').execute();
    assert.deepEqual((await fills()).map((f) => [f.asset, f.state]), [[DEMO_PURCHASES[0]!.assets[0], 'pending']]);

    assert.equal(await seedDemoMarket(t2.ctx, t2.ctx.devnet!), true);
    const after = await fills();
    assert.deepEqual(after.map((f) => [f.asset, f.state]), [...SOLD].sort().map((a) => [a, 'confirmed']), 'each unit bought once');
    assert.ok(after.some((f) => f.txid === lost!.txid), 'the journaled purchase is the one that confirmed');
    assert.deepEqual((await settlements()).map((s) => s.state), DEMO_PURCHASES.map(() => 'confirmed'));
    const quotes = await db.selectFrom('checkout_quotes').select('status').execute();
    assert.deepEqual(quotes.map((q) => q.status), DEMO_PURCHASES.map(() => 'completed'), 'no quote completed twice, none made for the lost one');
    assert.equal(await seedDemoMarket(t2.ctx, t2.ctx.devnet!), false);
  } finally {
    await t2.close();
  }
});

void test('the demo holds a live collection offer: carol on rare-pepes, a collection and a trait alternative, in the book', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/v1/collections/rare-pepes/book' });
  assert.equal(r.statusCode, 200, r.body);
  const book = JSON.parse(r.body).result;
  assert.equal(book.top_collection_offer_sats, 45_000);
  assert.deepEqual(book.offer_levels.map((l: { kind: string; price_sats: number }) => [l.kind, l.price_sats]), [['trait', 45_000], ['collection', 30_000]]);
  const carol = demoWallets().find((w) => w.label === 'carol')!;
  assert.ok(book.offers.every((o: { bidder: string }) => o.bidder === carol.address));
});
