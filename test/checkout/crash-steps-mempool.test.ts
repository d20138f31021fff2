/**
 * The node restarts with an empty mempool under a relayed checkout (real processes:
 * test/helpers/crash.ts): recovery relays the journaled settlement again and it confirms, one
 * sale. One file a step group (crash-steps-*.test.ts), so each stays well inside the suite's
 * per-file timeout.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, crashRig, until, type CrashRig } from '../helpers/crash.js';

let rig: CrashRig;
after(async () => rig?.close());

void test('the node restarts with an empty mempool: recovery relays the journaled settlement again and it confirms', { timeout: 150_000 }, async () => {
  rig = await crashRig('stmempool');
  const market = await rig.market();
  const { q, token, signed } = await rig.signedSale(market, 'mempool', 23_000);
  const done = await call(market.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, token);
  assert.equal(done.status, 200, JSON.stringify(done.body));
  const txid = q.expected_txid as string;
  assert.ok((await rig.mempool()).includes(txid));

  // Recovery (every 200 ms) may relay again before the test reads the mempool: its broadcasts wait
  // at the proxy until the test has seen the node forget the checkout.
  const held = rig.proxy.state.heldCalls;
  rig.proxy.state.hold = true;
  const dropped = await rig.control('mempool/drop', {});
  assert.equal(dropped.status, 200, JSON.stringify(dropped.body));
  assert.ok(dropped.body.result.dropped >= 1);
  assert.ok(!(await rig.mempool()).includes(txid), 'the node forgot the checkout');

  await until('recovery to relay the checkout again', async () => (rig.proxy.state.heldCalls > held ? true : undefined));
  rig.proxy.release();
  await until('the relayed checkout in the node\'s mempool', async () => ((await rig.mempool()).includes(txid) ? true : undefined));
  await rig.mine();
  await rig.quoteWhen(market, q.id as string, token, 'the confirmation', (s) => s.status === 'confirmed');
  assert.equal((await rig.salesOf(market, txid)).length, 1, 'one sale');
  await market.kill();
});
