/**
 * GET /metrics: Prometheus text with requests by route template (never raw URLs), limiter
 * refusals by class, settlements by state, the indexer's lag and the process figures; behind a
 * bearer token when METRICS_TOKEN is set.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testApp } from '../helpers/app.js';

void test('GET /metrics counts requests by route template and shows the journal, the indexer lag and the process', async () => {
  const t = await testApp();
  try {
    await t.app.inject({ method: 'GET', url: '/v1/listing-preflights/pf_nothing_here' });
    await t.app.inject({ method: 'GET', url: '/v1/collections' });
    const r = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(r.statusCode, 200, r.body);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    assert.match(r.body, /market_http_requests_total\{method="GET",route="\/v1\/listing-preflights\/:id",status="401"\} 1/);
    assert.ok(!r.body.includes('pf_nothing_here'), 'label values are route templates, not raw URLs');
    assert.match(r.body, /market_http_request_duration_seconds_bucket/);
    assert.match(r.body, /market_indexer_lag_blocks -?\d+/);
    assert.match(r.body, /# TYPE market_settlements gauge/);
    assert.match(r.body, /process_cpu_user_seconds_total/);
  } finally {
    await t.close();
  }
});

void test('with METRICS_TOKEN the figures need the bearer token', async () => {
  const t = await testApp({ env: { METRICS_TOKEN: 'm'.repeat(24) } });
  try {
    const anon = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(anon.statusCode, 401, anon.body);
    assert.equal(JSON.parse(anon.body).code, 'unauthenticated');
    const ok = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${'m'.repeat(24)}` } });
    assert.equal(ok.statusCode, 200);
  } finally {
    await t.close();
  }
});
