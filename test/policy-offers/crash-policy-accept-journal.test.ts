/**
 * Kill -9 inside a collection-offer accept after the commit, with submitpackage held at the node
 * proxy (real processes: test/helpers/crash.ts; the signer in the market's process over its own
 * directory): the node never saw the package; the restarted market's recovery submits it and the
 * unit reaches the bidder's delivery output. The kill before the commit is in
 * crash-policy-accept-cosign.test.ts: one file a kill point, each with its own devnet and market
 * store (test/helpers/policy-crash.ts), so each stays well inside the suite's per-file timeout.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, crashRig, type CrashRig } from '../helpers/crash.js';
import { assertAcceptSettled, marketWithAnchors, quotedAccept } from '../helpers/policy-crash.js';

let rig: CrashRig | undefined;
after(async () => rig?.close());

void test('killed inside a collection-offer accept after the commit, before submitpackage: the restarted market\'s recovery relays it once and the unit reaches the bidder', { timeout: 150_000 }, async () => {
  rig = await crashRig('pjournal');
  const { proxy } = rig;
  let market = await marketWithAnchors(rig);
  const b = await quotedAccept(rig, market, 'journal');

  await market.kill('SIGKILL');
  market = await rig.market('policy-accept-after-journal');
  proxy.state.hold = true;
  const pending = call(market.url, 'POST', '/v1/policy-accepts', b.body, b.token).catch(() => undefined);
  await rig.died(market, 'after the journal');
  await pending;
  assert.ok(!(await rig.mempool()).includes(b.childTxid), 'the node never saw the package before the crash');
  proxy.state.hold = false;

  market = await rig.market();
  await assertAcceptSettled(rig, market, b, 'recovery to relay the package');
});
