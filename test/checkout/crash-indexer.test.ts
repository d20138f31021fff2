/**
 * Kill -9 inside the indexer's transaction for a block and for a reorg rollback (real processes:
 * test/helpers/crash.ts). A sale is relayed; a market armed at the indexer's failpoint dies
 * while applying the block that confirms it, then while rolling that block back after a reorg.
 * Each restart resumes from the stored cursor: the cursor reaches the tip and the rows agree with
 * it (the sale confirmed at the block that holds it, unconfirmed after the reorg, confirmed again
 * once re-mined), and nothing is applied twice (one sale event, one fill).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, crashRig, until, type CrashRig, type Json, type Market } from '../helpers/crash.js';

let rig: CrashRig | undefined;
after(async () => rig?.close());

/** The market's indexer cursor (readyz) once it reached the devnet's tip. */
async function cursorAtTip(r: CrashRig, m: Market): Promise<number> {
  return until('the indexer to reach the tip', async () => {
    const tip = (await r.rpc('getblockcount')) as number;
    const ready = await call(m.url, 'GET', '/readyz');
    const detail = (ready.body.result?.indexer?.detail ?? '') as string;
    return detail === `height ${tip}` ? tip : undefined;
  });
}

void test('killed inside an indexer block and inside a reorg rollback: after each restart the cursor and the rows agree, nothing applied twice or skipped', { timeout: 180_000 }, async () => {
  rig = await crashRig('idx');
  let market = await rig.market();
  const { delivery, q, token, signed } = await rig.signedSale(market, 'idx', 24_000);
  const txid = q.expected_txid as string;
  const done = await call(market.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, token);
  assert.equal(done.status, 200, JSON.stringify(done.body));
  await cursorAtTip(rig, market);
  await market.kill();

  // The block that confirms the sale kills the indexer inside its transaction.
  market = await rig.market('indexer-block-before-commit');
  await rig.mine();
  const mined = (await rig.rpc('getblockcount')) as number;
  await rig.died(market, 'inside the block');
  market = await rig.market();
  assert.equal(await cursorAtTip(rig, market), mined);
  const confirmed = await rig.quoteWhen(market, q.id as string, token, 'the confirmation', (s) => s.status === 'confirmed');
  assert.equal(confirmed.block_index, mined, 'confirmed at the block that holds it');
  // Public fills are cached up to 30 s: each read asks another page size, so another cache key.
  let pageSize = 50;
  const fills = async () =>
    ((await call(market.url, 'GET', `/v1/fills?address=${delivery.address}&role=buyer&limit=${pageSize--}`)).body.result as Json[]).map((f) => [f.txid, f.confirmed_at !== null]);
  assert.deepEqual(await fills(), [[txid, true]]);
  assert.equal((await rig.salesOf(market, txid)).length, 1, 'one sale');
  await market.kill();

  // A reorg replaces that block: the rollback kills the indexer inside its transaction.
  market = await rig.market('indexer-rollback-before-commit');
  const reorg = await rig.control('reorg', { depth: 1 });
  assert.equal(reorg.status, 200, JSON.stringify(reorg.body));
  await rig.died(market, 'inside the rollback');
  market = await rig.market();
  assert.equal(await cursorAtTip(rig, market), reorg.body.result.height);
  const back = await rig.quoteWhen(market, q.id as string, token, 'the unconfirmation', (s) => s.status === 'broadcast');
  assert.equal(back.block_index, null);
  assert.deepEqual(await fills(), [[txid, false]]);
  assert.ok((await rig.mempool()).includes(txid), 'the sale went back to the mempool');

  // Mined again: confirmed once more, still one sale and one fill.
  await rig.mine();
  const again = await rig.quoteWhen(market, q.id as string, token, 'the confirmation again', (s) => s.status === 'confirmed');
  assert.equal(again.block_index, reorg.body.result.height + 1);
  assert.equal(await cursorAtTip(rig, market), reorg.body.result.height + 1);
  assert.deepEqual(await fills(), [[txid, true]]);
  assert.equal((await rig.salesOf(market, txid)).length, 1, 'one sale, not two');
});
