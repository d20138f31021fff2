/**
 * The devnet's Counterparty API v2 face at the wire: Core's envelope and
 * headers, 400/404 bodies, bare 64-bit integers in the JSON text, cursor
 * paging, per-block event rows and Electrs-shaped Bitcoin UTXO rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTx, fund } from '../helpers/devnet.js';
import { makeWallet } from '../helpers/wallets.js';
import { startDevnetFaces, type DevnetFaces } from './devnet-faces.js';

const erin = makeWallet('p2wpkh', 'cp-face-erin');
const frank = makeWallet('p2tr', 'cp-face-frank');
const BIG = '18446744073709551615';
let f: DevnetFaces;
let issuedAt: number;

async function get(path: string) {
  const res = await fetch(`${f.base}/devnet/counterparty/v2${path}`);
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown>, headers: res.headers };
}

before(async () => {
  f = await startDevnetFaces({ attachFeeRaw: '0' });
  await f.t.devnet.issueAsset({ asset: 'FACECARD', issuer: erin.address, quantity_raw: '9223372036854775807', divisible: false });
  issuedAt = (await f.btc.getTip()).height;
  await f.t.devnet.issueAsset({ asset: 'SMALLCARD', issuer: erin.address, quantity_raw: '3', divisible: false });
  await f.t.devnet.credit(erin.address, 'XCP', BIG.slice(0, 12));
});
after(() => f.close());

void describe('Counterparty API v2 face', () => {
  void it('GET /v2/: server info and the readiness headers on every reply', async () => {
    const r = await get('/');
    const tip = (await f.btc.getTip()).height;
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-counterparty-height'), String(tip));
    assert.equal(r.headers.get('x-bitcoin-height'), String(tip));
    assert.equal(r.headers.get('x-counterparty-ready'), 'True');
    const result = r.body.result as Record<string, unknown>;
    assert.deepEqual([result.server_ready, result.network, result.counterparty_height, result.backend_height], [true, 'regtest', tip, tip]);
    assert.equal('next_cursor' in r.body, false, 'a dict result has no paging keys');
  });

  void it('404 {"error": "Not found"} for unknown routes and assets, with the headers', async () => {
    for (const path of ['/nope', '/assets/NOSUCHCARD', '/blocks/abc/events']) {
      const r = await get(path);
      assert.equal(r.status, 404, path);
      assert.deepEqual(r.body, { error: 'Not found' });
      assert.equal(r.headers.get('x-counterparty-ready'), 'True');
    }
  });

  void it('400 with Core’s messages for bad parameters', async () => {
    assert.deepEqual((await get('/addresses/notanaddress/balances')).body, { error: 'Invalid address: notanaddress' });
    assert.deepEqual((await get(`/addresses/${erin.address}/balances?limit=x`)).body, { error: 'Invalid integer: limit' });
    const r = await get('/utxos/withbalances');
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { error: 'Missing required parameter: utxos' });
  });

  void it('writes quantities above 2^53 as bare JSON integers, like Core', async () => {
    const balances = await get(`/addresses/${erin.address}/balances`);
    assert.match(balances.text, /"quantity":\s*9223372036854775807[,}]/);
    assert.doesNotMatch(balances.text, /"9223372036854775807"/);
    const asset = await get('/assets/FACECARD');
    assert.match(asset.text, /"supply":\s*9223372036854775807[,}]/);
    assert.equal(typeof (asset.body.result as { asset_id: unknown }).asset_id, 'string', 'asset_id stays a string');
  });

  void it('lists page with limit/cursor/offset and report result_count (newest balance first, cursor = its rowid, as Core)', async () => {
    const all = await get(`/addresses/${erin.address}/balances`);
    const rows = all.body.result as Array<{ asset: string }>;
    // Credited FACECARD, then SMALLCARD, then XCP: Core's balances come newest rowid first.
    assert.deepEqual(rows.map((r) => r.asset), ['XCP', 'SMALLCARD', 'FACECARD']);
    assert.deepEqual([all.body.next_cursor, all.body.result_count], [null, 3]);
    const p1 = await get(`/addresses/${erin.address}/balances?limit=2`);
    assert.deepEqual([(p1.body.result as unknown[]).length, typeof p1.body.next_cursor, p1.body.result_count], [2, 'number', 3]);
    const p2 = await get(`/addresses/${erin.address}/balances?limit=2&cursor=${String(p1.body.next_cursor)}`);
    assert.deepEqual((p2.body.result as Array<{ asset: string }>).map((r) => r.asset), ['FACECARD']);
    assert.equal(p2.body.next_cursor, null);
    assert.deepEqual((await get(`/addresses/${erin.address}/balances?offset=1&limit=1`)).body.result, [rows[1]]);
  });

  void it('block events: newest first, no block_index on per-block rows, event_name and /events/{event}', async () => {
    const r = await get(`/blocks/${issuedAt}/events`);
    const rows = r.body.result as Array<Record<string, unknown>>;
    assert.ok(rows.length >= 2);
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['event', 'event_index', 'params', 'tx_hash']);
    const indexes = rows.map((e) => e.event_index as number);
    assert.deepEqual(indexes, [...indexes].sort((a, b) => b - a));
    const credits = await get(`/blocks/${issuedAt}/events?event_name=CREDIT`);
    assert.deepEqual((credits.body.result as Array<{ event: string }>).map((e) => e.event), ['CREDIT']);
    assert.deepEqual((await get(`/blocks/${issuedAt}/events/CREDIT`)).body.result, credits.body.result);
    assert.match(credits.text, /"quantity":\s*9223372036854775807[,}]/);
    const p1 = await get(`/blocks/${issuedAt}/events?limit=1`);
    assert.equal(p1.body.next_cursor, indexes[1]);
  });

  void it('bitcoin UTXOs in Electrs shape; unconfirmed only when asked', async () => {
    const coin = await fund(f.t.devnet, frank, 25_000);
    await f.btc.broadcast(buildTx([{ wallet: frank, coin }], [{ script: frank.script, amount: 24_000n }]));
    const confirmedOnly = await get(`/bitcoin/addresses/${frank.address}/utxos`);
    assert.deepEqual(confirmedOnly.body, { result: [], next_cursor: null, result_count: null }, 'the only confirmed coin is spent in the mempool');
    const withMempool = await get(`/bitcoin/addresses/${frank.address}/utxos?unconfirmed=true`);
    const [row] = withMempool.body.result as Array<Record<string, unknown>>;
    assert.deepEqual(row, { txid: row!.txid, vout: 0, status: { confirmed: false }, value: 24_000, amount: 0.00024 });
    const [hash] = await f.rpc.call<string[]>('generatetoaddress', [1, erin.address], { idempotent: false });
    const mined = await get(`/bitcoin/addresses/${frank.address}/utxos`);
    const [confirmed] = mined.body.result as Array<{ status: Record<string, unknown> }>;
    assert.equal(confirmed!.status.confirmed, true);
    assert.equal(confirmed!.status.block_hash, hash);
  });

  void it('asset balances: every holder, type=address|utxo filters, a bad type is 400, an unknown asset has none', async () => {
    const all = await get('/assets/SMALLCARD/balances');
    assert.deepEqual(all.body, { result: [{ address: erin.address, asset: 'SMALLCARD', asset_longname: null, quantity: 3, utxo: null, utxo_address: null }], next_cursor: null, result_count: 1 });
    assert.deepEqual((await get('/assets/SMALLCARD/balances?type=address')).body.result, all.body.result);
    assert.deepEqual((await get('/assets/SMALLCARD/balances?type=utxo')).body.result, []);
    const bad = await get('/assets/SMALLCARD/balances?type=nope');
    assert.deepEqual([bad.status, bad.body], [400, { error: 'Invalid value for type: nope (expected one of: all, utxo, address)' }]);
    assert.deepEqual((await get('/assets/NOSUCHCARD/balances')).body, { result: [], next_cursor: null, result_count: 0 });
  });

  void it('attach fee estimate and utxos/withbalances', async () => {
    assert.deepEqual((await get('/compose/attach/estimatexcpfees')).body, { result: 0 });
    const r = await get('/utxos/withbalances?utxos=aa:0,bb:1');
    assert.deepEqual(r.body, { result: { 'aa:0': false, 'bb:1': false } });
  });
});
