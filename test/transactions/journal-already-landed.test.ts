/**
 * Sim day 9162 (on Bitcoin Core 29.2): two exact accepts were released while their packages were
 * in a block, and the chain then confirmed sales the market had given up on. Recovery had read
 * the settlement `journaled` just before the accept's own relay marked it `relayed`; by the time
 * its relay reached the node, a block had mined the package, and Core answers each member of a
 * package it already has in its chain `txn-already-known`. Read as a refusal of bytes the network
 * never took, that released the sale.
 *
 * Now: a package member the node already has counts as landed (as sendrawtransaction's "already
 * known" answers always did); a refusal is checked against the node, which may hold the very
 * transaction; and a release for a refusal of never-relayed bytes applies only while the
 * settlement is still `journaled`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { buildTx, mempoolCoin, txidOf } from '../helpers/devnet.js';
import { makeWallet } from '../helpers/wallets.js';
import type { Chain } from '../../src/chain/ports.js';
import type { SettlementRow } from '../../src/settlement/journal.js';

let m: Market;
/** Runs once inside the next broadcast, before the node answers it (set by a test). */
let duringBroadcast: (() => Promise<void>) | undefined;

before(async () => {
  const wrapChain = (chain: Chain): Chain => ({
    ...chain,
    bitcoin: Object.assign(Object.create(chain.bitcoin) as Chain['bitcoin'], {
      broadcast: async (hex: string) => {
        const hook = duringBroadcast;
        duringBroadcast = undefined;
        if (hook) await hook();
        return chain.bitcoin.broadcast(hex);
      },
    }),
  });
  m = await openMarket({}, { wrapChain });
});
after(async () => m.close());

const w = makeWallet('p2wpkh', 'journal-already-landed');

/** Journals `txs` (the last the settlement's txid) as a settlement of a kind with no handlers; not relayed. */
async function journal(kind: string, txs: string[]): Promise<SettlementRow> {
  return m.ctx.store.db.transaction().execute((tx) =>
    m.ctx.journal.journalWith(tx, { kind, ref_id: txidOf(txs.at(-1)!), claims: [] }, () => Promise.resolve(txs.map((hex) => ({ txid: txidOf(hex), hex })))),
  );
}

const state = async (id: string) => (await m.ctx.journal.byId(id))!.state;

void test('recovery relaying a package a block has just mined: `txn-already-known` for each member is the node having it, never a release', async () => {
  const coin = await m.fund(w, 40_000);
  await m.mine();
  // Two outputs on the parent, one spent by the child: as an exact accept's parent (Core then
  // answers the parent `txn-already-known`, not missing inputs).
  const parent = buildTx([{ wallet: w, coin }], [{ script: w.script, amount: 20_000n }, { script: w.script, amount: 19_000n }], { version: 3 });
  const child = buildTx([{ wallet: w, coin: mempoolCoin(parent, 0, 20_000n) }], [{ script: w.script, amount: 18_000n }], { version: 3 });
  const s = await journal('test_landed_pkg', [parent, child]);
  // The accept's own relay took it and a block mined it; this recovery pass read the row before.
  await m.devnet.bitcoin.submitPackage([parent, child]);
  await m.mine();
  await m.ctx.journal.recover();
  assert.equal(await state(s.id), 'relayed');
});

void test('a single transaction a block has mined whose outputs are all spent: the node answers missing inputs, and the journal finds the transaction itself on the node', async () => {
  const coin = await m.fund(w, 30_000);
  await m.mine();
  const tx = buildTx([{ wallet: w, coin }], [{ script: w.script, amount: 29_000n }]);
  const spend = buildTx([{ wallet: w, coin: mempoolCoin(tx, 0, 29_000n) }], [{ script: w.script, amount: 28_000n }]);
  const s = await journal('test_landed_one', [tx]);
  await m.devnet.bitcoin.broadcast(tx);
  await m.devnet.bitcoin.broadcast(spend);
  await m.mine();
  await m.ctx.journal.recover();
  assert.equal(await state(s.id), 'relayed');
});

void test('a refusal judged on a row read `journaled` does not release a settlement another writer relayed meanwhile', async () => {
  const coin = await m.fund(w, 30_000);
  await m.mine();
  // Pays no fee: the node refuses it (a policy refusal, not a conflict).
  const tx = buildTx([{ wallet: w, coin }], [{ script: w.script, amount: 30_000n }]);
  const s = await journal('test_stale_read', [tx]);
  // While recovery's relay is on its way, the request that journaled it relays and marks it relayed.
  duringBroadcast = () => m.ctx.store.db.updateTable('settlements').set({ state: 'relayed', relayed_at: m.clock.now(), updated_at: m.clock.now() }).where('id', '=', s.id).execute().then(() => undefined);
  await m.ctx.journal.recover();
  assert.equal(duringBroadcast, undefined, 'recovery relayed it');
  assert.equal(await state(s.id), 'relayed');
  // The guard is the state the refusal was judged on: a settlement still journaled is released.
  const other = await journal('test_stale_read', [buildTx([{ wallet: w, coin: await m.fund(w, 30_000) }], [{ script: w.script, amount: 30_000n }])]);
  await m.mine();
  await m.ctx.journal.recover();
  assert.equal(await state(other.id), 'rejected');
});
