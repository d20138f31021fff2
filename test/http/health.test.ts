import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => t.close());
const json = (r: { body: string }) => JSON.parse(r.body) as Record<string, any>;

test('readyz on the devnet: ready once the indexer caught up, not ready when it lags', async () => {
  const early = await t.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(early.statusCode, 503);
  assert.equal(json(early).checks.indexer.ok, false);
  await t.ctx.sync();
  const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(ready.statusCode, 200, ready.body);
  assert.deepEqual(Object.keys(json(ready).result).filter((k) => k !== 'redis').sort(), ['bitcoin', 'counterparty', 'indexer', 'store', 'utxos']);
  await t.ctx.devnet!.mine(4);
  const lagging = await t.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(lagging.statusCode, 503);
  assert.match(json(lagging).checks.indexer.detail, /tip/);
  const sync = await t.app.inject({ method: 'POST', url: '/devnet/sync', payload: {} });
  assert.equal(sync.statusCode, 200);
  assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
});

test('Redis configured and unreachable: still ready, redis reported down, and limited routes counted on the instance (no 503)', async () => {
  const down = await testApp({ env: { REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX: 'readyz-down:' } });
  try {
    await down.ctx.indexer.run(); // not ctx.sync(): that clears the response cache, on the Redis that is down
    const r = await down.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(json(r).result.redis.ok, false);
    assert.ok(json(r).result.redis.detail, 'says why');
    assert.equal(json(r).result.indexer.ok, true);
    // An uncached read and an expensive write (rate-limited classes that do not fail open) are served.
    const book = await down.app.inject({ method: 'GET', url: '/v1/collections' });
    assert.equal(book.statusCode, 200, book.body);
    const challenge = await down.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080' } });
    assert.equal(challenge.statusCode, 200, challenge.body);
  } finally {
    await down.close();
  }
});
