/** GET /v1/meta: what a client reads once before trading (network, versions, fee floor, signer keys, limits). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import type { Chain } from '../../src/chain/ports.js';
import { LIMITS } from '../../src/limits/classes.js';

let t: TestApp;
let down: TestApp;
before(async () => {
  t = await testApp({ env: { BUILD_COMMIT: 'abc1234' } });
  // A node that cannot answer fee questions: the fee floor is null, the answer still 200.
  const broken = (c: Chain): Chain => ({ ...c, bitcoin: Object.assign(Object.create(c.bitcoin) as Chain['bitcoin'], { estimateFees: () => Promise.reject(new Error('node down')) }) });
  down = await testApp({ wrapChain: broken });
});
after(async () => {
  await t.close();
  await down.close();
});

const get = async (app: TestApp, url = '/v1/meta') => {
  const r = await app.app.inject({ method: 'GET', url, remoteAddress: '10.62.0.1' });
  return { status: r.statusCode, headers: r.headers, body: JSON.parse(r.body) as Record<string, any> };
};

test('network, versions, the node fee floor, the signer keys and limits; public and cached', async () => {
  const r = await get(t);
  assert.equal(r.status, 200);
  assert.equal(r.headers['cache-control'], 'public, max-age=30');
  const m = r.body.result;
  assert.equal(m.network, 'regtest');
  assert.equal(m.devnet, true);
  const doc = (await get(t, '/v1/openapi.json')).body;
  assert.equal(m.api_version, doc.info.version);
  assert.match(m.build.version, /^\d+\.\d+\.\d+/);
  assert.equal(m.build.commit, 'abc1234');
  assert.equal(m.fee_floor_sat_vb, (await t.ctx.chain.bitcoin.estimateFees()).minimum);
  const signer = (await get(t, '/v1/market-signer')).body.result;
  assert.equal(m.market_signer.current_pubkey, signer.current.pubkey);
  assert.deepEqual(m.market_signer.keys.map((k: any) => k.pubkey), signer.keys.map((k: any) => k.pubkey));
  assert.deepEqual(m.limits.rate_limits.uncached_read, { per_minute: LIMITS.uncached_read.principalLimit, ip_ceiling_per_minute: LIMITS.uncached_read.ipCeiling, scope: 'shared' });
  assert.deepEqual([m.limits.page_size_max, m.limits.checkout_lines_max, m.limits.checkout_units_max, m.limits.listing_price_min_sats], [100, 10, 20, 5000]);
  assert.deepEqual(m.platform_fee, { bps: t.config.MARKET_FEE_BPS, min_sats: t.config.MARKET_FEE_MIN_SATS });
  assert.equal((await get(t)).headers['x-cache'], 'hit');
});

test('a node that cannot be reached leaves the fee floor null, never an error', async () => {
  const r = await get(down);
  assert.equal(r.status, 200);
  assert.equal(r.body.result.fee_floor_sat_vb, null);
  assert.equal(r.body.result.network, 'regtest');
});

test('the OpenAPI document describes it with a named schema', async () => {
  const doc = (await get(t, '/v1/openapi.json')).body;
  const op = doc.paths['/v1/meta'].get;
  assert.ok(op, 'documented');
  assert.equal(op.security, undefined, 'public');
  const text = JSON.stringify(op.responses['200']);
  assert.match(text, /fee_floor_sat_vb|#\/components\/schemas\/Meta/);
});
