/**
 * Kill -9 after the node refused a checkout's relay, before the claims are released (real
 * processes: test/helpers/crash.ts). Restarted on the same store, recovery releases the claims
 * once, the same bytes answer the stored refusal and the listing sells to a new quote. One file
 * a step group (crash-steps-*.test.ts), so each stays well inside the suite's per-file timeout.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, crashRig, type CrashRig } from '../helpers/crash.js';

let rig: CrashRig;
after(async () => rig?.close());

void test('killed after a relay refusal before the claims are released: after restart they are released once and the listing sells to a new quote', { timeout: 150_000 }, async () => {
  rig = await crashRig('strefuse');
  let market = await rig.market('relay-refused-before-release');
  const { listingId, buyer, delivery, q, token, signed } = await rig.signedSale(market, 'refuse', 22_000);

  rig.proxy.state.refuse = 'min relay fee not met, 100 < 141';
  try {
    const r = await call(market.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, token).catch((e: unknown) => e);
    assert.ok(r instanceof Error, 'the market died answering');
    await rig.died(market, 'after the refusal');

    // Restarted while the node still refuses: recovery relays once more, is refused, releases.
    market = await rig.market();
    const failed = await rig.quoteWhen(market, q.id as string, token, 'the release', (s) => s.status === 'failed');
    assert.equal(failed.claims_released, true, JSON.stringify(failed));
  } finally {
    rig.proxy.state.refuse = null;
  }
  // The same bytes again answer the stored refusal as the spec says, never a second release or a relay.
  const broadcasts = rig.proxy.state.broadcasts;
  const again = await call(market.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, token);
  assert.equal(again.status, 422, JSON.stringify(again.body));
  assert.equal(again.body.code, 'mempool_rejected');
  assert.equal(again.body.claims_released, true);
  assert.equal(rig.proxy.state.broadcasts, broadcasts, 'the stored refusal is answered without relaying again');
  assert.ok(!(await rig.mempool()).includes(q.expected_txid as string), 'the refused bytes never reached the node');

  // The claims are free and the listing is back on sale: a new quote over the same listing and the buyer's coin completes.
  const fresh = await rig.signedQuote(market, listingId, buyer, delivery, false);
  const done = await call(market.url, 'POST', `/v1/checkout/quotes/${fresh.q.id}/complete`, { psbt_hex: fresh.signed }, fresh.token);
  assert.equal(done.status, 200, JSON.stringify(done.body));
  await rig.mine();
  await rig.quoteWhen(market, fresh.q.id as string, fresh.token, 'the confirmation', (s) => s.status === 'confirmed');
  assert.equal((await rig.salesOf(market, fresh.q.expected_txid as string)).length, 1, 'one sale');
  assert.equal((await rig.salesOf(market, q.expected_txid as string)).length, 0, 'no sale for the refused bytes');
  await market.kill();
});
