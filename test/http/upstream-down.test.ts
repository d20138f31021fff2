import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';

let t: TestApp;
before(async () => {
  t = await testApp({ chain: unreachableChain() });
});
after(async () => t.close());

test('a backend that is down: 503 upstream_unavailable, retryable, never cached', async () => {
  for (const url of ['/v1/fee-rate', '/v1/attach-fee-estimate']) {
    const r = await t.app.inject({ method: 'GET', url });
    assert.equal(r.statusCode, 503, url);
    const body = JSON.parse(r.body);
    assert.equal(body.code, 'upstream_unavailable');
    assert.equal(body.retryable, true);
    assert.equal(r.headers['cache-control'], 'no-store');
  }
  const s = await t.app.inject({ method: 'POST', url: '/v1/transactions/status', payload: { txids: ['ab'.repeat(32)] } });
  assert.equal(s.statusCode, 503);
  assert.equal(JSON.parse(s.body).code, 'upstream_unavailable');
});
