/**
 * A relayed package whose input's source is unknown to the node: Core answers the package's
 * shape (`package-not-child-with-unconfirmed-parents`), not the input. The journal asks the node
 * itself and ends the settlement conflicted when the source is in neither the node's mempool nor
 * its chain — unless the source is a transaction the journal still relays (another live
 * settlement of the market's, re-relayed by the same recovery), which is a source still to come.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { buildTx, mempoolCoin, txidOf, type Coin } from '../helpers/devnet.js';
import { makeWallet } from '../helpers/wallets.js';
import type { SettlementRow } from '../../src/settlement/journal.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const w = makeWallet('p2wpkh', 'journal-source-gone');

/** Journals `txs` (the last the settlement's txid) as a settlement of a kind with no handlers; not relayed. */
async function journal(txs: string[]): Promise<SettlementRow> {
  return m.ctx.store.db.transaction().execute((tx) =>
    m.ctx.journal.journalWith(tx, { kind: 'test_gone', ref_id: txidOf(txs.at(-1)!), claims: [] }, () => Promise.resolve(txs.map((hex) => ({ txid: txidOf(hex), hex })))),
  );
}

const state = async (id: string) => (await m.ctx.journal.byId(id))!;

/** A package [parent, child] whose child also spends `source` (a transaction not in the package). */
async function packageOver(source: { hex: string; amount: bigint }) {
  const coin: Coin = await m.fund(w, 20_000);
  const parent = buildTx([{ wallet: w, coin }], [{ script: w.script, amount: 19_000n }]);
  const child = buildTx(
    [
      { wallet: w, coin: mempoolCoin(parent, 0, 19_000n) },
      { wallet: w, coin: mempoolCoin(source.hex, 0, source.amount) },
    ],
    [{ script: w.script, amount: 19_000n + source.amount - 2_000n }],
  );
  return [parent, child];
}

void test("a source nobody relays any more ends the package conflicted, missing-inputs; a source the journal still relays does not", async () => {
  const coinA = await m.fund(w, 15_000);
  const coinB = await m.fund(w, 15_000);
  await m.mine();
  // `foreign`: a transaction the market never journaled (someone's attach, a parent replaced upstream).
  const foreign = buildTx([{ wallet: w, coin: coinA }], [{ script: w.script, amount: 14_000n }]);
  // `ours`: a settlement of the market's own.
  const ours = buildTx([{ wallet: w, coin: coinB }], [{ script: w.script, amount: 14_000n }]);

  // The packages are journaled first, so recovery reaches them before the settlement one depends on.
  const overForeign = await journal(await packageOver({ hex: foreign, amount: 14_000n }));
  const overOurs = await journal(await packageOver({ hex: ours, amount: 14_000n }));
  m.clock.advance(1_000);
  const own = await journal([ours]);
  assert.equal((await m.ctx.journal.relay(own.id)).status, 'relayed');
  await m.devnet.bitcoin.broadcast(foreign);
  // Core takes a package only when its child's other inputs are confirmed: both sources confirm
  // (the market's indexer has not read the block: `own` is still relayed in the journal).
  await m.mine();
  for (const s of [overForeign, overOurs]) assert.equal((await m.ctx.journal.relay(s.id)).status, 'relayed', s.id);

  // A reorg returns both sources to the mempool, and the node then loses it (a restart without
  // it): nobody relays `foreign` again; the journal relays `ours`.
  await m.devnet.reorg(1);
  await m.devnet.dropMempool();
  await m.ctx.journal.recover();

  const gone = await state(overForeign.id);
  assert.equal(gone.state, 'conflicted', JSON.stringify(gone));
  assert.equal(
    gone.mempool_reason,
    `missing-inputs, the source of ${txidOf(foreign)}:0 is neither in the node's mempool nor in its chain (the node said: package-not-child-with-unconfirmed-parents)`,
  );
  // The package over the market's own settlement waits for it: recovery relayed `ours` in the same pass.
  assert.equal((await state(overOurs.id)).state, 'relayed');
  assert.ok(await m.devnet.bitcoin.getTransaction(txidOf(ours)), 'recovery relayed the settlement it depends on');
  await m.mine();
  await m.ctx.journal.recover();
  assert.ok(await m.devnet.bitcoin.getTransaction(overOurs.txid), 'once it confirms, the package is relayed again');
  assert.equal((await state(overOurs.id)).state, 'relayed');
});
