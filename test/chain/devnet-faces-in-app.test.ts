/**
 * The faces inside the market app (CHAIN=devnet): registered next to the API,
 * untouched by its JSON body parser, error envelope and trailing-slash rules.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { testApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

void it('POST /devnet/rpc answers Core JSON-RPC, text/plain bodies and parse errors included', async () => {
  const tip = await t.ctx.chain.bitcoin.getTip();
  const ok = await t.app.inject({ method: 'POST', url: '/devnet/rpc', headers: { 'content-type': 'text/plain' }, payload: '{"id":1,"method":"getblockcount"}' });
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(ok.json(), { result: tip.height, error: null, id: 1 });
  const bad = await t.app.inject({ method: 'POST', url: '/devnet/rpc', headers: { 'content-type': 'application/json' }, payload: '{' });
  assert.equal(bad.statusCode, 500);
  assert.deepEqual(bad.json(), { result: null, error: { code: -32700, message: 'Parse error' } });
});

void it('GET /devnet/counterparty/v2 (with or without the slash) answers Core API v2 with its headers', async () => {
  for (const url of ['/devnet/counterparty/v2/', '/devnet/counterparty/v2']) {
    const r = await t.app.inject({ method: 'GET', url });
    assert.equal(r.statusCode, 200, url);
    assert.equal(r.headers['x-counterparty-ready'], 'True');
    assert.equal((r.json() as { result: { server_ready: boolean } }).result.server_ready, true);
  }
  const nf = await t.app.inject({ method: 'GET', url: '/devnet/counterparty/v2/nope' });
  assert.deepEqual([nf.statusCode, nf.json()], [404, { error: 'Not found' }]);
});
