import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { makeWallet } from '../helpers/wallets.js';
import { unreachableChain } from '../helpers/chain.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => t.close());
const json = (r: { body: string }) => JSON.parse(r.body) as Record<string, any>;
const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, payload });

test('faucet pays a confirmed UTXO; utxos lists it', async () => {
  const w = makeWallet('p2wpkh', 'faucet');
  const r = await post('/devnet/faucet', { address: w.address, amount_sats: 150_000 });
  assert.equal(r.statusCode, 200, r.body);
  const { txid, vout } = json(r).result;
  const out = await t.ctx.chain.bitcoin.getTxOut(txid, vout);
  assert.equal(out?.value_sats, 150_000);
  assert.equal(out?.confirmations, 1);
  const u = await t.app.inject({ method: 'GET', url: `/devnet/addresses/${w.address}/utxos` });
  assert.deepEqual(json(u).result.map((x: any) => [x.txid, x.vout, x.value_sats]), [[txid, vout, 150_000]]);
});

test('mine advances the tip; reorg replaces blocks and changes hashes', async () => {
  const before = await t.ctx.chain.bitcoin.getTip();
  const m = await post('/devnet/mine', { blocks: 3 });
  assert.equal(json(m).result.height, before.height + 3);
  const oldHash = await t.ctx.chain.bitcoin.getBlockHash(before.height + 2);
  const r = await post('/devnet/reorg', { depth: 2 });
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(json(r).result.disconnected, 2);
  assert.equal(json(r).result.height, before.height + 4);
  assert.notEqual(await t.ctx.chain.bitcoin.getBlockHash(before.height + 2), oldHash);
});

test('assets and credit show up in Counterparty balances', async () => {
  const w = makeWallet('p2tr', 'issuer');
  const a = await post('/devnet/assets', { asset: 'DEVNETCARD', issuer: w.address, quantity_raw: '7', divisible: false });
  assert.equal(a.statusCode, 200, a.body);
  assert.equal(json(a).result.asset, 'DEVNETCARD');
  const c = await post('/devnet/credit', { address: w.address, asset: 'XCP', quantity_raw: '250000000' });
  assert.equal(c.statusCode, 200, c.body);
  await post('/devnet/mine', { blocks: 1 });
  const balances = await t.ctx.chain.counterparty.getAddressBalances(w.address);
  const byAsset = Object.fromEntries(balances.map((b) => [b.asset, b.quantity_raw]));
  assert.equal(byAsset.DEVNETCARD, '7');
  assert.equal(byAsset.XCP, '250000000');
  const info = await t.ctx.chain.counterparty.getAsset('DEVNETCARD');
  assert.equal(info?.divisible, false);
  assert.equal(info?.issuer, w.address);
});

test('bad input: 400 invalid_request naming the field; another network is invalid', async () => {
  for (const [url, payload, field] of [
    ['/devnet/faucet', { address: makeWallet('p2wpkh', 'x', 'mainnet').address, amount_sats: 1000 }, 'body.address'],
    ['/devnet/faucet', { address: makeWallet('p2wpkh', 'x').address, amount_sats: 10 }, 'body.amount_sats'],
    ['/devnet/mine', { blocks: 0 }, 'body.blocks'],
    ['/devnet/assets', { asset: 'AB', issuer: makeWallet('p2wpkh', 'x').address, quantity_raw: '1' }, 'body.asset'],
    ['/devnet/credit', { address: makeWallet('p2wpkh', 'x').address, asset: 'XCP', quantity_raw: '-1' }, 'body.quantity_raw'],
    ['/devnet/reorg', { depth: 1000 }, 'body.depth'],
  ] as const) {
    const r = await post(url, payload);
    assert.equal(r.statusCode, 400, `${url} ${r.body}`);
    assert.equal(json(r).code, 'invalid_request');
    assert.equal(json(r).field, field, url);
  }
});

test('devnet routes are documented and absent on a real chain config', async () => {
  const doc = json(await t.app.inject({ method: 'GET', url: '/v1/openapi.json' }));
  for (const p of ['/devnet/faucet', '/devnet/mine', '/devnet/assets', '/devnet/credit', '/devnet/reorg', '/devnet/sync', '/devnet/addresses/{address}/utxos']) assert.ok(doc.paths[p], p);
  const prod = await testApp({ chain: unreachableChain() });
  try {
    const r = await prod.app.inject({ method: 'POST', url: '/devnet/mine', payload: { blocks: 1 } });
    assert.equal(r.statusCode, 404);
    assert.equal(json(r).code, 'not_found');
  } finally {
    await prod.close();
  }
});

test('faucet asking more than the miner holds: 400 invalid_request, not 500', async () => {
  const w = makeWallet('p2wpkh', 'faucet-broke');
  const r = await post('/devnet/faucet', { address: w.address, amount_sats: 2_000_000_000_000_000 });
  assert.equal(r.statusCode, 400, r.body);
  assert.equal(json(r).code, 'invalid_request');
  assert.match(json(r).error, /miner/);
});

test('POST /devnet/sync takes an empty body with a JSON content type, or none', async () => {
  const empty = await t.app.inject({ method: 'POST', url: '/devnet/sync', headers: { 'content-type': 'application/json' }, payload: '' });
  assert.equal(empty.statusCode, 200, empty.body);
  const none = await t.app.inject({ method: 'POST', url: '/devnet/sync' });
  assert.equal(none.statusCode, 200, none.body);
});

test('counterparty-fault puts a Counterparty Core failure on and takes it off; the market’s reads meet it as Core’s', async () => {
  const w = makeWallet('p2wpkh', 'cp-fault');
  const utxos = () => t.ctx.chain.utxos.getAddressUtxos(w.address).then(() => 'ok', (e: Error & { status?: number }) => `${e.constructor.name} ${e.status}`);
  assert.equal(await utxos(), 'ok');
  const on = await post('/devnet/counterparty-fault', { fault: 'electrs_failed' });
  assert.deepEqual([on.statusCode, json(on).result], [200, { fault: 'electrs_failed' }], on.body);
  assert.equal(await utxos(), 'ElectrsUnavailable 503');
  assert.equal((await post('/devnet/counterparty-fault', { fault: 'not_ready' })).statusCode, 200);
  assert.equal(await utxos(), 'UpstreamUnavailable 503');
  // Core's status route answers while it catches up (the market reads readiness from it).
  assert.equal((await t.ctx.chain.counterparty.getStatus()).counterparty_height >= 0, true);
  assert.equal((await post('/devnet/counterparty-fault', { fault: 'none' })).statusCode, 200);
  assert.equal(await utxos(), 'ok');
  const bad = await post('/devnet/counterparty-fault', { fault: 'slow' });
  assert.deepEqual([bad.statusCode, json(bad).code], [400, 'invalid_request']);
});
