import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { tableChain } from '../helpers/chain.js';

const fake = tableChain({ fees: { fastest: 25.04, half_hour: 12, hour: 8.01, economy: 2, minimum: 1 }, xcpFee: '50000000' });
let t: TestApp;
before(async () => {
  t = await testApp({ chain: { chain: fake.chain } });
});
after(async () => t.close());
const json = (r: { body: string }) => JSON.parse(r.body) as Record<string, any>;

test('fee-rate: body in sat/vB, public for 30 s, served from the shared cache', async () => {
  const before = fake.stats.calls;
  const r = await t.app.inject({ method: 'GET', url: '/v1/fee-rate', remoteAddress: '10.2.0.1' });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(json(r).result, { fastest: 25.1, half_hour: 12, hour: 8.1, economy: 2, minimum: 1, unit: 'sat/vB' });
  assert.equal(r.headers['cache-control'], 'public, max-age=30');
  assert.equal(r.headers['x-cache'], 'miss');
  const again = await t.app.inject({ method: 'GET', url: '/v1/fee-rate?utm=1', remoteAddress: '10.2.0.2' });
  assert.equal(again.headers['x-cache'], 'hit');
  assert.equal(again.body, r.body);
  assert.equal(fake.stats.calls, before + 1, 'the backend was read once');
  t.clock.advance(30_000);
  const stale = await t.app.inject({ method: 'GET', url: '/v1/fee-rate', remoteAddress: '10.2.0.2' });
  assert.equal(stale.headers['x-cache'], 'miss');
  assert.equal(fake.stats.calls, before + 2);
});

test('cache hits do not consume read budget', async () => {
  const ip = '10.2.0.50';
  await t.ctx.cache.clear();
  for (let i = 0; i < 400; i++) {
    const r = await t.app.inject({ method: 'GET', url: '/v1/attach-fee-estimate', remoteAddress: ip });
    assert.equal(r.statusCode, 200, `request ${i}`);
  }
  assert.deepEqual(JSON.parse((await t.app.inject({ method: 'GET', url: '/v1/attach-fee-estimate', remoteAddress: ip })).body).result, {
    asset: 'XCP',
    fee_raw: '50000000',
    variable_until_confirmed: true,
  });
  // Only the first request missed the cache and counted: 299 uncached reads remain.
  const fakeTx = '0'.repeat(64);
  let allowed = 0;
  for (let i = 0; i < 300; i++) if ((await t.app.inject({ method: 'POST', url: '/v1/transactions/status', payload: { txids: [fakeTx] }, remoteAddress: ip })).statusCode === 200) allowed++;
  assert.equal(allowed, 299);
});

test('errors and writes are no-store', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/v1/nope' });
  assert.equal(r.headers['cache-control'], 'no-store');
  const w = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: {} });
  assert.equal(w.headers['cache-control'], 'no-store');
  assert.equal(json(w).code, 'invalid_request');
});

test('Cache-Control: no-cache reads the backend and spends the read budget; a conditional request stays a revalidation', async () => {
  const ip = '10.2.0.77';
  await t.app.inject({ method: 'GET', url: '/v1/fee-rate', remoteAddress: '10.2.0.76' });
  const before = fake.stats.calls;
  const fresh = await t.app.inject({ method: 'GET', url: '/v1/fee-rate', headers: { 'cache-control': 'no-cache' }, remoteAddress: ip });
  assert.equal(fresh.headers['x-cache'], 'miss');
  assert.equal(fake.stats.calls, before + 1, 'read from the backend');
  const etag = String(fresh.headers.etag);
  const revalidated = await t.app.inject({ method: 'GET', url: '/v1/fee-rate', headers: { 'cache-control': 'no-cache', 'if-none-match': etag }, remoteAddress: ip });
  assert.equal(revalidated.statusCode, 304);
  assert.equal(fake.stats.calls, before + 1, 'checked against the current entry');
  // 300 uncached reads a minute per IP: the first no-cache read spent one.
  let refused = 0;
  for (let i = 0; i < 300; i++) {
    const r = await t.app.inject({ method: 'GET', url: '/v1/fee-rate', headers: { 'cache-control': 'no-cache' }, remoteAddress: ip });
    if (r.statusCode === 429) refused++;
  }
  assert.equal(refused, 1, 'the 301st no-cache read is refused');
  const plain = await t.app.inject({ method: 'GET', url: '/v1/fee-rate', remoteAddress: ip });
  assert.equal(plain.statusCode, 200, 'a cache hit still answers');
});
