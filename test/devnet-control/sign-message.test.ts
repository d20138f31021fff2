/** POST /devnet/sign-message: /docs can finish a sign-in as a demo wallet, on the devnet only. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { tableChain } from '../helpers/chain.js';
import { demoWallets } from '../../src/demo/wallets.js';

let t: TestApp;
let core: TestApp;
before(async () => {
  t = await testApp();
  // A market without a devnet (the production adapters' shape): the route does not exist.
  core = await testApp({ chain: { chain: tableChain({ fees: { fastest: 2, half_hour: 2, hour: 1, economy: 1, minimum: 1 }, xcpFee: '0' }).chain } });
});
after(async () => {
  await t.close();
  await core.close();
});

const post = (app: TestApp, url: string, payload: object) => app.app.inject({ method: 'POST', url, payload, remoteAddress: '10.63.0.1' });

test('each demo wallet (P2WPKH and P2TR) signs a challenge that /v1/auth/verify accepts', async () => {
  for (const w of demoWallets()) {
    const c = JSON.parse((await post(t, '/v1/auth/challenge', { address: w.address })).body).result;
    const s = await post(t, '/devnet/sign-message', { wallet: w.label, message: c.message });
    assert.equal(s.statusCode, 200, s.body);
    const signed = JSON.parse(s.body).result;
    assert.equal(signed.address, w.address);
    const v = await post(t, '/v1/auth/verify', { address: w.address, issued_at: c.issued_at, signature: signed.signature });
    assert.equal(v.statusCode, 200, `${w.label}: ${v.body}`);
    assert.ok(JSON.parse(v.body).result.token);
  }
});

test('only the demo wallets; never without a devnet', async () => {
  const other = await post(t, '/devnet/sign-message', { wallet: 'mallory', message: 'x' });
  assert.equal(other.statusCode, 400);
  assert.equal(JSON.parse(other.body).code, 'invalid_request');
  assert.equal((await post(core, '/devnet/sign-message', { wallet: 'alice', message: 'x' })).statusCode, 404);
});
