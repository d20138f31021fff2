/** GET /v1/fills: the public sales history, its filters, paging and what it never shows. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { makeWallet } from '../helpers/wallets.js';
import { confirmFill, dropFill, insertFill, unconfirmFill } from '../helpers/feed-rows.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import type { FillTables } from '../../src/trade/fill-tables.js';
import { catalog } from '../market/fixture.js';

type Fill = FillTables['fills'];

let t: TestApp;
const alice = makeWallet('p2wpkh', 'fills-alice').address;
const bob = makeWallet('p2tr', 'fills-bob').address;
const carol = makeWallet('p2pkh', 'fills-carol').address; // a legacy delivery address
const fills: Fill[] = [];

const T0 = 1_800_000_000;
const FILL_KEYS = ['txid', 'kind', 'ref_id', 'asset', 'asset_longname', 'seller', 'buyer', 'price_sats', 'platform_fee_sats', 'delivery_mode', 'broadcast_at', 'confirmed_at', 'block_index'];

before(async () => {
  // /v1/fills never asks the chain: a chain that is down proves it.
  t = await testApp({ chain: unreachableChain() });
  await importCatalog(t.ctx.store.db, catalog);
  const db = t.ctx.store.db;
  const add = async (over: Parameters<typeof insertFill>[1]) => fills.push(await insertFill(db, over));
  // Four fills share one second (a cart), so ties are broken by id across pages.
  for (let i = 0; i < 4; i++) await add({ seller: alice, buyer: bob, asset: 'PEPEONE', broadcast_at: T0 + 100, txid: 'aa'.repeat(32) });
  await add({ seller: alice, buyer: carol, asset: 'PEPETWO', broadcast_at: T0 + 90, asset_longname: null });
  await add({ seller: bob, buyer: alice, asset: 'CATTEN', broadcast_at: T0 + 80, kind: 'offer', delivery_mode: 'attached' });
  await add({ seller: bob, buyer: carol, asset: 'NOTLISTED', broadcast_at: T0 + 70 });
  await add({ seller: carol, buyer: bob, asset: 'PEPETHREE', broadcast_at: T0 + 60 });
  await confirmFill(db, fills[4]!.id, T0 + 95, 101);
  await confirmFill(db, fills[5]!.id, T0 + 85, 100);
  // Dropped fills exist for the operator only.
  const dropped = await insertFill(db, { seller: alice, buyer: bob, asset: 'PEPEONE', broadcast_at: T0 + 200 });
  await dropFill(db, dropped.id, T0 + 201);
});
after(async () => t.close());

const get = (url: string) => getJson(t.app, url);
const ok = async (url: string) => {
  const r = await get(url);
  assert.equal(r.status, 200, `${url}: ${r.raw}`);
  return r;
};

/** Every page of `url` (limit given in it), following next_cursor. */
async function all(url: string) {
  const rows: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await ok(`${url}${url.includes('?') ? '&' : '?'}${cursor ? `cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.body.result_count, r.body.result.length);
    rows.push(...r.body.result);
    cursor = r.body.next_cursor;
    pages++;
  } while (cursor);
  return { rows, pages };
}

/** Newest first by (broadcast_at, id): the order the route promises. */
const expected = (keep: (f: Fill) => boolean) =>
  fills.filter((f) => f.state !== 'dropped' && keep(f)).sort((a, b) => b.broadcast_at - a.broadcast_at || (a.id < b.id ? 1 : -1));

void test('rows are the spec fill row exactly, newest first, dropped fills never shown; public, cached 30 s', async () => {
  const r = await ok('/v1/fills');
  assert.equal(r.headers['cache-control'], 'public, max-age=30');
  assert.equal(r.body.result_count, 8);
  assert.equal(r.body.next_cursor, null);
  for (const row of r.body.result) assert.deepEqual(Object.keys(row).sort(), [...FILL_KEYS].sort());
  const byRef = new Map(r.body.result.map((x: any) => [x.ref_id, x]));
  const offer = byRef.get(fills[5]!.ref_id) as any;
  assert.deepEqual(offer, {
    txid: fills[5]!.txid,
    kind: 'offer',
    ref_id: fills[5]!.ref_id,
    asset: 'CATTEN',
    asset_longname: null,
    seller: bob,
    buyer: alice,
    price_sats: 20_000,
    platform_fee_sats: 400,
    delivery_mode: 'attached',
    broadcast_at: T0 + 80,
    confirmed_at: T0 + 85,
    block_index: 100,
  });
  assert.equal((byRef.get(fills[0]!.ref_id) as any).confirmed_at, null, 'pending: no confirmation');
  assert.deepEqual(
    r.body.result.map((x: any) => x.ref_id),
    expected(() => true).map((f) => f.ref_id),
  );
  assert.ok(!r.raw.includes('payer') && !r.raw.includes('settlement_id') && !r.raw.includes('psbt'));
});

void test('paging: limit 3 walks every fill once, ties in broadcast_at broken by id', async () => {
  const { rows, pages } = await all('/v1/fills?limit=3');
  assert.equal(pages, 3);
  assert.deepEqual(rows.map((x) => x.ref_id), expected(() => true).map((f) => f.ref_id));
  assert.equal(new Set(rows.map((x) => x.ref_id)).size, rows.length, 'no duplicates');
  const one = await all('/v1/fills?limit=1');
  assert.deepEqual(one.rows.map((x) => x.ref_id), rows.map((x) => x.ref_id));
});

void test('address and role: seller, buyer (the delivery address) or either side', async () => {
  const cases: Array<[string, (f: Fill) => boolean]> = [
    [`address=${alice}&role=seller`, (f) => f.seller === alice],
    [`address=${alice}&role=buyer`, (f) => f.buyer === alice],
    [`address=${alice}`, (f) => f.seller === alice || f.buyer === alice],
    [`address=${alice}&role=any`, (f) => f.seller === alice || f.buyer === alice],
    [`address=${carol}&role=buyer`, (f) => f.buyer === carol],
    [`address=${bob}&status=confirmed`, (f) => (f.seller === bob || f.buyer === bob) && f.id === fills[5]!.id],
  ];
  for (const [q, keep] of cases) {
    const { rows } = await all(`/v1/fills?limit=2&${q}`);
    assert.deepEqual(rows.map((x) => x.ref_id), expected(keep).map((f) => f.ref_id), q);
  }
});

void test('asset, collection (any membership) and status filters', async () => {
  const refs = async (q: string) => (await all(`/v1/fills?limit=2&${q}`)).rows.map((x) => x.ref_id);
  assert.deepEqual(await refs('asset=PEPEONE'), expected((f) => f.asset === 'PEPEONE').map((f) => f.ref_id));
  // beta holds PEPEONE as a secondary membership, PEPETHREE as primary.
  assert.deepEqual(await refs('collection=beta'), expected((f) => ['PEPEONE', 'PEPETHREE'].includes(f.asset)).map((f) => f.ref_id));
  assert.deepEqual(await refs('collection=gamma'), [fills[5]!.ref_id]);
  assert.deepEqual(await refs('status=confirmed'), [fills[4]!.ref_id, fills[5]!.ref_id]);
  assert.deepEqual(await refs('status=pending').then((x) => x.length), 6);
  assert.deepEqual(await refs('collection=alpha&status=confirmed&address=' + alice), [fills[4]!.ref_id]);
});

void test('a reorg returns a fill to pending: it moves between status filters and loses its confirmation', async () => {
  const db = t.ctx.store.db;
  const f = fills[7]!;
  await confirmFill(db, f.id, T0 + 500, 120);
  t.clock.advance(31_000); // past the 30 s cache
  const row = (await ok(`/v1/fills?asset=PEPETHREE`)).body.result[0];
  assert.deepEqual([row.confirmed_at, row.block_index], [T0 + 500, 120]);
  assert.ok((await ok('/v1/fills?status=confirmed&asset=PEPETHREE')).body.result.length === 1);
  await unconfirmFill(db, f.id, T0 + 501);
  t.clock.advance(31_000);
  const back = (await ok(`/v1/fills?asset=PEPETHREE`)).body.result[0];
  assert.deepEqual([back.confirmed_at, back.block_index], [null, null]);
  assert.deepEqual((await ok('/v1/fills?status=confirmed&asset=PEPETHREE')).body.result, []);
  assert.equal((await ok('/v1/fills?status=pending&asset=PEPETHREE')).body.result.length, 1);
});

void test('refusals: role without address, bad address, bad values, unknown collection, foreign cursors', async () => {
  const bad: Array<[string, number, string]> = [
    ['/v1/fills?role=seller', 400, 'invalid_request'],
    ['/v1/fills?role=any', 400, 'invalid_request'],
    ['/v1/fills?address=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 400, 'invalid_request'], // mainnet on regtest
    ['/v1/fills?address=notanaddress', 400, 'invalid_request'],
    ['/v1/fills?role=payer&address=' + alice, 400, 'invalid_request'],
    ['/v1/fills?status=dropped', 400, 'invalid_request'],
    ['/v1/fills?asset=pepeone', 400, 'invalid_request'],
    ['/v1/fills?limit=0', 400, 'invalid_request'],
    ['/v1/fills?limit=101', 400, 'invalid_request'],
    ['/v1/fills?collection=nope', 404, 'not_found'],
    ['/v1/fills?cursor=garbage', 400, 'invalid_request'],
  ];
  for (const [url, status, code] of bad) {
    const r = await get(url);
    assert.equal(r.status, status, `${url}: ${r.raw}`);
    assert.equal(r.body.code, code, url);
    assert.equal(r.headers['cache-control'], 'no-store', url);
  }
  const first = await ok(`/v1/fills?limit=2&address=${alice}`);
  const cursor = encodeURIComponent(first.body.next_cursor);
  assert.equal((await ok(`/v1/fills?limit=2&address=${alice}&cursor=${cursor}`)).body.result.length, 2);
  assert.equal((await ok(`/v1/fills?limit=2&address=${alice}&role=any&cursor=${cursor}`)).body.result.length, 2, 'role=any is the default');
  for (const other of [`address=${alice}&role=seller`, `address=${bob}`, 'asset=PEPEONE', `address=${alice}&status=pending`, '']) {
    const r = await get(`/v1/fills?limit=2&${other}&cursor=${cursor}`);
    assert.equal(r.status, 400, other);
    assert.equal(r.body.code, 'invalid_request');
  }
  // A cursor of the event feed (which pages these same sales) is not one of this route.
  const events = await ok('/v1/events?limit=1');
  const foreign = await get(`/v1/fills?cursor=${encodeURIComponent(events.body.next_cursor)}`);
  assert.deepEqual([foreign.status, foreign.body.code], [400, 'invalid_request']);
});
