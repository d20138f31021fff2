/**
 * Collection holders from real devnet balances: assets held before the catalogue knew them,
 * detached and UTXO-attached units (an attached unit counts for the UTXO's owner), a UTXO moved
 * to another owner, a detach to a third address, a reorg that undoes the move, and the bounds.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx, coinOf, txidOf } from '../helpers/devnet.js';
import { openMarket, type Market } from '../helpers/market.js';
import { detachOutputScript } from '../../src/counterparty/attach-detach.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { MAX_HOLDERS } from '../../src/modules/market/holders-service.js';
import { same } from './holding-recount.js';

let m: Market;
const alice = makeWallet('p2wpkh', 'holders-alice');
const bob = makeWallet('p2tr', 'holders-bob');
const carol = makeWallet('p2wpkh', 'holders-carol');
const dave = makeWallet('p2pkh', 'holders-dave');
let unit: { txid: string; vout: number };
let moved = '';

const holders = async (q = '', slug = 'hold') => {
  const r = await m.call('GET', `/v1/collections/${slug}/holders${q}`, null);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result;
};
const rows = (h: any) => h.holders.map((x: any) => [x.address, x.edition_units, x.distinct_assets, x.percent_collected, x.assets]);
/** The highest Counterparty event index the devnet has journaled. */
const lastEventIndex = async () => {
  const tip = (await m.devnet.bitcoin.getTip()).height;
  const events = await m.devnet.counterparty.getBlockEvents(tip);
  return Math.max(...events.map((e) => e.event_index));
};

before(async () => {
  m = await openMarket();
  await m.devnet.issueAsset({ asset: 'HOLDONE', issuer: alice.address, quantity_raw: '5', divisible: false });
  await m.devnet.issueAsset({ asset: 'HOLDTWO', issuer: bob.address, quantity_raw: '250000000', divisible: true });
  await m.devnet.issueAsset({ asset: 'HOLDTHREE', issuer: alice.address, quantity_raw: '3', divisible: false });
  await m.devnet.issueAsset({ asset: 'HOLDFOUR', issuer: carol.address, quantity_raw: '7', divisible: false });
  await m.sync();
});
after(async () => m.close());

void test('a catalogue imported after the balances exist: read with the next block (indexed_assets tells)', async () => {
  await importCatalog(m.ctx.store.db, {
    collections: [{ slug: 'hold', name: 'Hold' }, { slug: 'spare', name: 'Spare' }, { slug: 'crowd', name: 'Crowd' }],
    artists: [],
    assets: [
      { asset: 'HOLDONE', collection: 'hold' },
      { asset: 'HOLDTWO', collection: 'hold' },
      { asset: 'HOLDTHREE', collection: 'hold' },
      { asset: 'NOTISSUED', collection: 'hold' },
      { asset: 'HOLDFOUR', collection: 'spare' },
      { asset: 'CROWDCARD', collection: 'crowd' },
    ],
  });
  await m.sync();
  const before = await holders();
  assert.deepEqual([before.holders, before.holder_count, before.collection_assets, before.indexed_assets], [[], 0, 4, 0]);
  assert.equal(typeof before.as_of_event_index, 'number');

  await m.mine();
  await m.sync();
  const h = await holders();
  assert.deepEqual(rows(h), [
    [alice.address, 8, 2, 50, ['HOLDONE', 'HOLDTHREE']],
    [bob.address, 2, 1, 25, ['HOLDTWO']],
  ], '2.5 divisible units count as 2 whole units');
  assert.deepEqual([h.holder_count, h.total_edition_units, h.collection_assets, h.indexed_assets], [2, 10, 4, 4]);
  assert.equal(h.as_of_event_index, await lastEventIndex());
  assert.deepEqual(rows(await holders('', 'spare')), [[carol.address, 7, 1, 100, ['HOLDFOUR']]]);
});

void test('an attached unit still counts for the UTXO owner; moving the UTXO moves the holding', async () => {
  unit = await m.attachDirect(alice, 'HOLDONE', '2');
  await m.sync();
  assert.deepEqual(rows(await holders())[0], [alice.address, 8, 2, 50, ['HOLDONE', 'HOLDTHREE']], '3 detached + 2 attached + 3');
  const view = await m.ctx.store.db.selectFrom('cp_balances').selectAll().where('asset', '=', 'HOLDONE').orderBy('holder').execute();
  assert.deepEqual(view.map((r) => [r.address, r.utxo, r.quantity_raw]).sort(), [[alice.address, null, '3'], [alice.address, `${unit.txid}:0`, '2']].sort());

  const fee = await m.fund(alice, 10_000);
  moved = buildTx([{ wallet: alice, coin: coinOf(m.devnet, unit.txid, unit.vout) }, { wallet: alice, coin: fee }], [{ script: carol.script, amount: 330n }, { script: alice.script, amount: 8_000n }]);
  await m.devnet.bitcoin.broadcast(moved);
  await m.sync();
  assert.equal(rows(await holders())[0][1], 8, 'a mempool move changes nothing');
  await m.mine();
  await m.sync();
  const h = await holders();
  assert.deepEqual(rows(h), [
    [alice.address, 6, 2, 50, ['HOLDONE', 'HOLDTHREE']],
    [bob.address, 2, 1, 25, ['HOLDTWO']],
    [carol.address, 2, 1, 25, ['HOLDONE']],
  ], 'ties by units, then distinct assets, then address; a holder\'s assets by units, then name');
  await same(m.ctx.store.db, 'the move');
  assert.equal(h.as_of_event_index, await lastEventIndex());
});

void test('reorg: the view returns to the chain that won (the move is undone until mined again)', async () => {
  await m.devnet.reorg(1);
  await m.sync();
  const h = await holders();
  assert.deepEqual(rows(h).map((r: any) => r.slice(0, 2)), [[alice.address, 8], [bob.address, 2]], 'HOLDONE was read again although no new block touched it');
  await same(m.ctx.store.db, 'the reorg');
  assert.equal(h.indexed_assets, 4);
  assert.equal(h.as_of_event_index, await lastEventIndex());

  await m.mine(); // the move comes back from the mempool
  await m.sync();
  assert.deepEqual(rows(await holders()).map((r: any) => r.slice(0, 2)), [[alice.address, 6], [bob.address, 2], [carol.address, 2]]);
});

void test('a detach to another address: the unit is now a detached balance of that address', async () => {
  const movedTxid = txidOf(moved);
  const fee = await m.fund(carol, 10_000);
  const detach = buildTx([{ wallet: carol, coin: coinOf(m.devnet, movedTxid, 0) }, { wallet: carol, coin: fee }], (key) => [
    { script: detachOutputScript({ input0Txid: key, destination: dave.address, network: 'regtest' }), amount: 0n },
    { script: carol.script, amount: 9_000n },
  ]);
  await m.devnet.bitcoin.broadcast(detach);
  await m.mine();
  await m.sync();
  assert.deepEqual(rows(await holders()).map((r: any) => r.slice(0, 2)), [[alice.address, 6], [bob.address, 2], [dave.address, 2]]);
  await same(m.ctx.store.db, 'the detach');
  const view = await m.ctx.store.db.selectFrom('cp_balances').selectAll().where('asset', '=', 'HOLDONE').where('address', '=', dave.address).execute();
  assert.deepEqual(view.map((r) => [r.utxo, r.quantity_raw]), [[null, '2']]);
});

void test('limit: 1..100 accepted, holders clamped to 50; assets at most 10 per holder', async () => {
  // Read shape only: holdings rows written directly for a crowd of 60 addresses and one collector of 12 assets.
  const db = m.ctx.store.db;
  await importCatalog(db, {
    collections: [{ slug: 'hold', name: 'Hold' }, { slug: 'crowd', name: 'Crowd' }],
    artists: [],
    assets: [
      { asset: 'HOLDONE', collection: 'hold' },
      ...Array.from({ length: 12 }, (_, i) => ({ asset: `CROWD${String.fromCharCode(65 + i)}`, collection: 'crowd' })),
    ],
  });
  const crowd = Array.from({ length: 60 }, (_, i) => `bcrt1qcrowd${String(i).padStart(4, '0')}`);
  await db.insertInto('cp_holdings').values(crowd.map((address, i) => ({ asset: 'CROWDA', address, units: 100 - i }))).execute();
  await db.insertInto('cp_holdings').values(Array.from({ length: 12 }, (_, i) => ({ asset: `CROWD${String.fromCharCode(65 + i)}`, address: 'bcrt1qcollector', units: 1 }))).execute();
  await m.sync(); // flush the cache
  const all = await holders('?limit=100', 'crowd');
  assert.equal(all.holders.length, MAX_HOLDERS);
  assert.deepEqual([all.holder_count, all.collection_assets], [61, 12]);
  assert.deepEqual(all.holders.slice(0, 2).map((x: any) => [x.address, x.edition_units]), [[crowd[0], 100], [crowd[1], 99]]);
  const def = await holders('', 'crowd');
  assert.equal(def.holders.length, MAX_HOLDERS);
  const one = await holders('?limit=1', 'crowd');
  assert.deepEqual(one.holders.map((x: any) => x.address), [crowd[0]]);
  const collector = (await holders('?limit=100', 'crowd')).holders.find((x: any) => x.address === 'bcrt1qcollector');
  assert.equal(collector, undefined, '12 units: below the 50th holder');
  await db.deleteFrom('cp_holdings').where('address', 'in', crowd.slice(0, 55)).execute();
  await m.sync();
  const c = (await holders('?limit=100', 'crowd')).holders.find((x: any) => x.address === 'bcrt1qcollector');
  assert.deepEqual([c.edition_units, c.distinct_assets, c.percent_collected, c.assets.length], [12, 12, 100, 10]);
});

void test('errors and caching', async () => {
  const ok = await m.call('GET', '/v1/collections/hold/holders', null);
  assert.equal(ok.headers['cache-control'], 'public, max-age=30');
  for (const q of ['?limit=0', '?limit=101', '?limit=x']) {
    const r = await m.call('GET', `/v1/collections/hold/holders${q}`, null);
    assert.deepEqual([r.status, r.body.code], [400, 'invalid_request'], q);
  }
  const r = await m.call('GET', '/v1/collections/nowhere/holders', null);
  assert.deepEqual([r.status, r.body.code], [404, 'not_found']);
});
