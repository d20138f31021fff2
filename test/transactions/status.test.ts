import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { tableChain } from '../helpers/chain.js';

const tx = (n: number) => n.toString(16).padStart(64, '0');
const fake = tableChain({ confirmations: { [tx(1)]: 0, [tx(2)]: 1, [tx(3)]: 3, [tx(4)]: 12 }, delayMs: 5 });
let t: TestApp;
before(async () => {
  t = await testApp({ chain: { chain: fake.chain } });
});
after(async () => t.close());
const json = (r: { body: string }) => JSON.parse(r.body) as Record<string, any>;
const post = (txids: unknown, ip = '10.1.0.1') => t.app.inject({ method: 'POST', url: '/v1/transactions/status', payload: { txids }, remoteAddress: ip });

test('answers in request order; unknown is a state, never a 404; final at 3 confirmations', async () => {
  const r = await post([tx(4), tx(9), tx(1), tx(2), tx(3)]);
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual(json(r).result, [
    { txid: tx(4), state: 'known', confirmed: true, confirmations: 12, final: true },
    { txid: tx(9), state: 'unknown', confirmed: false, final: false },
    { txid: tx(1), state: 'known', confirmed: false, final: false },
    { txid: tx(2), state: 'known', confirmed: true, confirmations: 1, final: false },
    { txid: tx(3), state: 'known', confirmed: true, confirmations: 3, final: true },
  ]);
  assert.equal(r.headers['cache-control'], 'no-store');
});

test('at most four upstream reads at once', async () => {
  fake.stats.maxInFlight = 0;
  const r = await post(Array.from({ length: 25 }, (_, i) => tx(100 + i)));
  assert.equal(r.statusCode, 200);
  assert.equal(json(r).result.length, 25);
  assert.equal(fake.stats.maxInFlight, 4);
});

test('bad batches: empty, 26, duplicates, bad txid → 400 naming the field', async () => {
  for (const [txids, field] of [
    [[], 'body.txids'],
    [Array.from({ length: 26 }, (_, i) => tx(i)), 'body.txids'],
    [[tx(1), tx(1)], 'body.txids'],
    [[tx(1), 'ABC'], 'body.txids[1]'],
    [['ab'.repeat(32).toUpperCase()], 'body.txids[0]'],
  ] as const) {
    const r = await post(txids);
    assert.equal(r.statusCode, 400, JSON.stringify(txids).slice(0, 40));
    assert.equal(json(r).code, 'invalid_request');
    assert.equal(json(r).field, field);
  }
});

test('counts against the uncached-read budget (300 per IP per minute)', async () => {
  const ip = '10.1.0.99';
  for (let i = 0; i < 300; i++) assert.equal((await post([tx(1)], ip)).statusCode, 200, `request ${i}`);
  const r = await post([tx(1)], ip);
  assert.equal(r.statusCode, 429);
  assert.equal(json(r).code, 'rate_limited');
});
