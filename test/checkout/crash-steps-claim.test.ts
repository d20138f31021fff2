/**
 * Kill -9 inside the checkout claim transaction, before its commit (real processes:
 * test/helpers/crash.ts). The market armed at that failpoint (CRASH_AT) dies by SIGKILL there;
 * restarted on the same store, nothing was claimed or broadcast and the same quote completes.
 * The other settlement steps the journal → broadcast test does not reach are in
 * crash-steps-*.test.ts: one file a step group, each with its own devnet and market store, so
 * each stays well inside the suite's per-file timeout on a loaded PostgreSQL run.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, crashRig, type CrashRig } from '../helpers/crash.js';

let rig: CrashRig;
after(async () => rig?.close());

void test('killed inside the claim transaction before its commit: nothing claimed or broadcast; after restart the same quote completes', { timeout: 150_000 }, async () => {
  rig = await crashRig('stclaim');
  let market = await rig.market('checkout-claim-before-commit');
  const { q, token, signed } = await rig.signedSale(market, 'claim', 21_000);
  const broadcasts = rig.proxy.state.broadcasts;

  const r = await call(market.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, token).catch((e: unknown) => e);
  assert.ok(r instanceof Error, 'the market died answering');
  await rig.died(market, 'inside the claim transaction');
  assert.equal(rig.proxy.state.broadcasts, broadcasts, 'nothing was broadcast');

  market = await rig.market();
  const after = await call(market.url, 'GET', `/v1/checkout/quotes/${q.id}`, undefined, token);
  assert.equal(after.body.result.status, 'quoted', JSON.stringify(after.body));
  assert.ok(!(await rig.mempool()).includes(q.expected_txid as string));

  const done = await call(market.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, token);
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.ok((await rig.mempool()).includes(q.expected_txid as string));
  await rig.mine();
  await rig.quoteWhen(market, q.id as string, token, 'the confirmation', (s) => s.status === 'confirmed');
  assert.equal((await rig.salesOf(market, q.expected_txid as string)).length, 1, 'one sale');
  await market.kill();
});
