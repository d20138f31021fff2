/**
 * The demo seed on a fresh devnet store: the catalogue, funded wallets, issued assets, and live
 * listings made through the market's own services with the demo keys, public at once; a second
 * run does nothing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { seedDemoMarket, demoWallets } from '../../src/demo/seed.js';
import { DEMO_LISTINGS } from '../../src/demo/seed-listings.js';
import demoCatalog from '../../src/demo/catalog.json' with { type: 'json' };

let t: TestApp;
let seededIn = 0;
before(async () => {
  t = await testApp();
  const started = Date.now();
  assert.equal(await seedDemoMarket(t.ctx, t.ctx.devnet!), true);
  seededIn = Date.now() - started;
});
after(async () => t.close());

const get = async (url: string) => {
  const r = await t.app.inject({ method: 'GET', url });
  assert.equal(r.statusCode, 200, r.body);
  return JSON.parse(r.body) as { result: any };
};

/** [listed, floor] per key from the plan and the catalogue's memberships. */
function expected(keyOf: (a: (typeof demoCatalog.assets)[number]) => string[]): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const l of DEMO_LISTINGS) {
    const a = demoCatalog.assets.find((x) => x.asset === l.asset)!;
    for (const k of new Set(keyOf(a))) {
      const [n, floor] = out.get(k) ?? [0, Infinity];
      out.set(k, [n + 1, Math.min(floor, l.price_sats)]);
    }
  }
  return out;
}

void test('collections show the seeded listings as public: 2 to 4 each, with their floors', async () => {
  const rows = (await get('/v1/collections')).result as Array<{ slug: string; listed: number; floor_sats: number | null }>;
  const want = expected((a) => [a.collection, ...((a as { also_in?: string[] }).also_in ?? [])]);
  assert.equal(rows.length, demoCatalog.collections.length);
  for (const c of rows) {
    assert.deepEqual([c.slug, c.listed, c.floor_sats], [c.slug, ...want.get(c.slug)!], c.slug);
    assert.ok(c.listed >= 2 && c.listed <= 4, `${c.slug}: ${c.listed} listings`);
  }
  const by = Object.fromEntries(rows.map((c) => [c.slug, [c.listed, c.floor_sats]]));
  assert.deepEqual(by, { 'rare-pepes': [4, 42_000], 'fake-rares': [3, 33_000], 'spells-of-genesis': [3, 20_000] });
});

void test('artists show their listed counts and floors', async () => {
  const want = expected((a) => [a.artist]);
  for (const [artist, figures] of want) {
    const key = artist.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const a = (await get(`/v1/artists/${key}`)).result;
    assert.deepEqual([a.listed, a.floor_sats], figures, artist);
  }
  const listed = (await get('/v1/artists/hodl-ashby/assets?listed=1')).result.map((r: any) => r.asset);
  assert.deepEqual(listed, ['FAKEASF', 'FAKEDREAM', 'FAKEORACLE']);
});

void test('the listings are real: active, signed by both wallet families, reused and attached units, prices in range', async () => {
  const db = t.ctx.store.db;
  const listings = await db.selectFrom('listings').innerJoin('listing_drafts', 'listing_drafts.id', 'listings.draft_id')
    .select(['listings.asset', 'listings.seller', 'listings.state', 'listings.price_sats', 'listings.utxo_txid', 'listing_drafts.mode', 'listing_drafts.status']).execute();
  assert.equal(listings.length, DEMO_LISTINGS.length);
  assert.ok(listings.every((l) => l.state === 'active' && l.status === 'completed'), JSON.stringify(listings));
  assert.ok(listings.every((l) => l.price_sats >= 20_000 && l.price_sats <= 2_000_000));
  const [alice, bob, carol] = demoWallets();
  assert.match(bob!.address, /^bcrt1p/);
  assert.match(alice!.address, /^bcrt1q/);
  assert.deepEqual(new Set(listings.map((l) => l.seller)), new Set([alice!.address, bob!.address, carol!.address]));
  assert.deepEqual(listings.filter((l) => l.mode === 'reuse').map((l) => l.asset).sort(), ['PEPEDIAMOND', 'SOGDRAGON']);
  assert.equal(listings.filter((l) => l.mode === 'attach').length, DEMO_LISTINGS.length - 2);
  // Counterparty agrees: every listed outpoint holds exactly its unit, confirmed.
  for (const l of listings) {
    const held = await t.ctx.chain.counterparty.getUtxoBalances(`${l.utxo_txid}:0`);
    assert.deepEqual(held.map((b) => [b.asset, b.quantity_raw]), [[l.asset, '1']], l.asset);
    assert.ok((await t.ctx.chain.bitcoin.getTxOut(l.utxo_txid, 0, false))!.confirmations >= 1);
  }
  const live = await db.selectFrom('settlements').select('state').where('state', 'in', ['journaled', 'relayed']).execute();
  assert.deepEqual(live, [], 'every attach confirmed');
});

void test('a restart with a seeded store does nothing again; a store seeded before listings gets none twice', async () => {
  const tip = await t.ctx.chain.bitcoin.getTip();
  const count = async () => (await t.ctx.store.db.selectFrom('listings').select('id').execute()).length;
  assert.equal(await seedDemoMarket(t.ctx, t.ctx.devnet!), false);
  assert.deepEqual(await t.ctx.chain.bitcoin.getTip(), tip);
  assert.equal(await count(), DEMO_LISTINGS.length);
  // A crash after listing but before the marker: the rerun finds every draft listed.
  await t.ctx.store.db.deleteFrom('meta').where('key', '=', 'demo_listed').execute();
  assert.equal(await seedDemoMarket(t.ctx, t.ctx.devnet!), true);
  assert.deepEqual(await t.ctx.chain.bitcoin.getTip(), tip, 'no block mined');
  assert.equal(await count(), DEMO_LISTINGS.length);
});

void test('the seed is quick', () => {
  // Generous for a loaded 2-core machine; it takes a few seconds.
  assert.ok(seededIn < 30_000, `seeded in ${seededIn} ms`);
});
