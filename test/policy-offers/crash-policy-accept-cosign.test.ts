/**
 * Kill -9 inside a collection-offer accept after the signer co-signed, before the commit (real
 * processes: test/helpers/crash.ts; the signer in the market's process over its own directory):
 * nothing of the accept is in the database; the restarted market takes the same signed bytes and
 * completes with the signature the signer recorded (it never signs a second child for the
 * parent), and the unit reaches the bidder's delivery output. The kill after the commit is in
 * crash-policy-accept-journal.test.ts: one file a kill point, each with its own devnet and market
 * store (test/helpers/policy-crash.ts), so each stays well inside the suite's per-file timeout.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, crashRig, type CrashRig } from '../helpers/crash.js';
import { assertAcceptSettled, marketWithAnchors, quotedAccept } from '../helpers/policy-crash.js';

let rig: CrashRig | undefined;
after(async () => rig?.close());

void test('killed inside a collection-offer accept after the co-signature, before the commit: nothing committed; the restarted market completes it once and the unit reaches the bidder', { timeout: 150_000 }, async () => {
  rig = await crashRig('pcosign');
  let market = await marketWithAnchors(rig);
  const a = await quotedAccept(rig, market, 'cosign');

  await market.kill('SIGKILL');
  market = await rig.market('policy-accept-after-cosign');
  await call(market.url, 'POST', '/v1/policy-accepts', a.body, a.token).catch(() => undefined);
  await rig.died(market, 'after the co-signature');
  await rig.withMarketDb(async (db) => {
    const s = await db.selectFrom('policy_funding_sets').select('state').where('parent_txid', '=', a.parentTxid).executeTakeFirstOrThrow();
    assert.equal(s.state, 'open', 'nothing of the accept was committed');
    assert.equal((await db.selectFrom('settlements').select('id').where('kind', '=', 'policy_accept').execute()).length, 0);
  });

  market = await rig.market();
  const done = await call(market.url, 'POST', '/v1/policy-accepts', a.body, a.token);
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.result.txid, a.childTxid);
  await assertAcceptSettled(rig, market, a, 'the completed accept\'s package in the mempool');
});
