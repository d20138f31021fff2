/**
 * The devnet's mempool as Bitcoin Core 29's where the market meets it (issue #28): package members
 * judged alone first and kept (partial results), package RBF (validation.cpp
 * `PackageMempoolChecks`), Core 29's submitpackage and testmempoolaccept reply shapes, coinbase
 * maturity, and the relay floors as settings (29.1's 0.1 sat/vB by default, Core 28's 1 a setting
 * away). Each test failed on the devnet that validated packages all or nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyRejection } from '../../src/chain/errors.js';
import { TxRejected } from '../../src/chain/ports.js';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx, coinOf, fund, mempoolCoin as out, openTestDevnet, rejectionOf, txidOf, type TestDevnet } from '../helpers/devnet.js';

const alice = makeWallet('p2wpkh', 'c29-alice');
const bob = makeWallet('p2wpkh', 'c29-bob');
const carol = makeWallet('p2tr', 'c29-carol');
let d: TestDevnet;

before(async () => {
  d = await openTestDevnet();
});
after(() => d.cleanup());

const inMempool = async (hexTx: string) => (await d.devnet.bitcoin.getMempoolEntry(txidOf(hexTx))) !== null;
const wtxidOf = (hexTx: string) => d.devnet.rpc.decoderawtransaction(hexTx).hash;

void test('a parent that pays its own way stays in the mempool when its child is refused; each member gets its own result', async () => {
  const coin = await fund(d.devnet, alice, 30_000);
  const parent = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 29_000n }]);
  // The child's only output is dust: refused alone for a reason no package can change.
  const child = buildTx([{ wallet: bob, coin: out(parent, 0, 29_000n) }], [{ script: bob.script, amount: 200n }]);
  const reply = await d.devnet.submitPackage([parent, child]);
  assert.equal(reply.package_msg, 'transaction failed');
  const p = reply['tx-results'][wtxidOf(parent)]!;
  assert.equal(p.txid, txidOf(parent));
  assert.equal(p.fees?.base, 0.00001);
  assert.deepEqual(p.fees?.['effective-includes'], [wtxidOf(parent)]);
  assert.equal(p.error, undefined);
  assert.deepEqual(reply['tx-results'][wtxidOf(child)], { txid: txidOf(child), error: 'dust' });
  assert.ok(await inMempool(parent), 'the parent landed');
  assert.equal(await inMempool(child), false);
  // Through the port: a result naming each member's fate, not a refusal of the whole.
  const again = await d.devnet.bitcoin.submitPackage([parent, child]);
  assert.deepEqual(again.members, [
    { txid: txidOf(parent), accepted: true },
    { txid: txidOf(child), accepted: false, error: 'dust' },
  ]);
  // Persisted: a restart keeps the parent.
  await d.reopen();
  assert.ok(await inMempool(parent));
});

void test('package RBF: a parent too poor to replace alone replaces its conflict with its child\'s fee', async () => {
  const coin = await fund(d.devnet, alice, 50_000);
  const original = buildTx([{ wallet: alice, coin }], [{ script: alice.script, amount: 49_000n }]);
  await d.devnet.sendRawTransaction(original);
  // The parent alone pays 500 < 1,000: insufficient fee (Core's TX_RECONSIDERABLE), then judged with its child.
  const parent = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 49_500n }], { version: 3 });
  const child = buildTx([{ wallet: bob, coin: out(parent, 0, 49_500n) }], [{ script: bob.script, amount: 45_500n }], { version: 3 });
  assert.match((await rejectionOf(d.devnet, parent)).reason, /^insufficient fee, rejecting replacement/);
  const reply = await d.devnet.submitPackage([parent, child]);
  assert.equal(reply.package_msg, 'success');
  assert.deepEqual(reply['replaced-transactions'], [txidOf(original)]);
  const both = [wtxidOf(parent), wtxidOf(child)];
  assert.deepEqual(reply['tx-results'][wtxidOf(parent)]!.fees?.['effective-includes'], both);
  assert.equal(await inMempool(original), false);
  assert.ok((await inMempool(parent)) && (await inMempool(child)));
  await d.devnet.mine(1);
  assert.equal((await d.devnet.bitcoin.getTransaction(txidOf(child)))?.confirmations, 1);
});

void test('package RBF refusals: not enough fees for what it evicts; a conflict in a cluster above two', async () => {
  const coin = await fund(d.devnet, alice, 50_000);
  const original = buildTx([{ wallet: alice, coin }], [{ script: alice.script, amount: 45_000n }]);
  await d.devnet.sendRawTransaction(original);
  const parent = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 49_500n }], { version: 3 });
  const poorChild = buildTx([{ wallet: bob, coin: out(parent, 0, 49_500n) }], [{ script: bob.script, amount: 47_000n }], { version: 3 });
  const reply = await d.devnet.submitPackage([parent, poorChild]);
  assert.match(reply.package_msg, new RegExp(`^package RBF failed: insufficient anti-DoS fees, rejecting replacement ${txidOf(poorChild)}, less fees than conflicting txs; 0\\.00003 < 0\\.00005$`));
  // Each member keeps the refusal it got alone; nothing entered, the original stays.
  assert.match(reply['tx-results'][wtxidOf(parent)]!.error!, /^insufficient fee, rejecting replacement/);
  assert.ok(await inMempool(original));
  assert.equal(await inMempool(parent), false);
  // Through the port: a refusal the relay reads as a lost race (the conflict won).
  const e = await d.devnet.bitcoin.submitPackage([parent, poorChild]).catch((x: unknown) => x);
  assert.ok(e instanceof TxRejected);
  assert.deepEqual(classifyRejection(e.reason), { kind: 'conflict' });

  // The original grows two descendants: its cluster is above two, so no package may replace it.
  const kid = buildTx([{ wallet: alice, coin: out(original, 0, 45_000n) }], [{ script: alice.script, amount: 44_000n }]);
  const grandkid = buildTx([{ wallet: alice, coin: out(kid, 0, 44_000n) }], [{ script: alice.script, amount: 43_000n }]);
  await d.devnet.sendRawTransaction(kid);
  await d.devnet.sendRawTransaction(grandkid);
  const richChild = buildTx([{ wallet: bob, coin: out(parent, 0, 49_500n) }], [{ script: bob.script, amount: 30_000n }], { version: 3 });
  const topo = await d.devnet.submitPackage([parent, richChild]);
  assert.equal(topo.package_msg, `package RBF failed: ${txidOf(original)} has 2 descendants, max 1 allowed`);
  assert.ok(await inMempool(grandkid));
});

void test('testmempoolaccept of a package stops at the first failure: earlier members lose `allowed`, later ones are unevaluated', async () => {
  const coin = await fund(d.devnet, alice, 30_000);
  const parent = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 29_000n }]);
  const child = buildTx([{ wallet: bob, coin: out(parent, 0, 29_000n) }], [{ script: bob.script, amount: 200n }]);
  const grandchild = buildTx([{ wallet: bob, coin: out(child, 0, 200n) }], [{ script: carol.script, amount: 100n }]);
  const rows = await d.devnet.testMempoolAccept([parent, child, grandchild]);
  assert.deepEqual(rows, [
    { txid: txidOf(parent), wtxid: wtxidOf(parent) },
    { txid: txidOf(child), wtxid: wtxidOf(child), allowed: false, 'reject-reason': 'dust', 'reject-details': 'dust' },
    { txid: txidOf(grandchild), wtxid: wtxidOf(grandchild) },
  ]);
  const port = await d.devnet.bitcoin.testAccept([parent, child]);
  assert.deepEqual(port[0], { txid: txidOf(parent), allowed: false, reject_reason: 'unevaluated' });
});

void test('coinbase maturity: a coinbase output is spendable 100 blocks after its own, not before', async () => {
  const [block] = await d.devnet.mine(1, carol.address);
  const cb = (await d.devnet.bitcoin.getBlock(block!))!.txs[0]!;
  const coin = coinOf(d.devnet, cb.txid, 0);
  const spend = buildTx([{ wallet: carol, coin }], [{ script: carol.script, amount: coin.amount - 1_000n }]);
  assert.equal((await rejectionOf(d.devnet, spend)).reason, 'bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth 1');
  await d.devnet.mine(98);
  assert.equal((await rejectionOf(d.devnet, spend)).reason, 'bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth 99');
  await d.devnet.mine(1);
  assert.equal(await d.devnet.sendRawTransaction(spend), txidOf(spend));
});

void test('relay floors are settings: Core 29.1\'s 0.1 sat/vB by default, Core 28\'s 1 sat/vB a setting away', async (t) => {
  const info = d.devnet.rpc.getmempoolinfo();
  assert.deepEqual([info.minrelaytxfee, info.incrementalrelayfee, info.mempoolminfee], [0.000001, 0.000001, 0.000001]);
  assert.equal((await d.devnet.bitcoin.estimateFees()).minimum, 0.1);
  const coin = await fund(d.devnet, alice, 20_000);
  const fifty = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 19_950n }]);
  const [ok] = await d.devnet.testMempoolAccept([fifty]);
  assert.equal(ok?.allowed, true, '50 sats over ~110 vB clears 0.1 sat/vB');

  const old = await openTestDevnet({ minRelayFeeRate: 1, incrementalRelayFeeRate: 1 });
  t.after(() => old.cleanup());
  const oldInfo = old.devnet.rpc.getmempoolinfo();
  assert.deepEqual([oldInfo.minrelaytxfee, oldInfo.incrementalrelayfee], [0.00001, 0.00001]);
  assert.equal((await old.devnet.bitcoin.estimateFees()).minimum, 1);
  const oldCoin = await fund(old.devnet, alice, 20_000);
  const e = await rejectionOf(old.devnet, buildTx([{ wallet: alice, coin: oldCoin }], [{ script: bob.script, amount: 19_950n }]));
  assert.match(e.reason, /^min relay fee not met, 50 < 1\d\d$/);
});

void test('OP_RESERVED is push-only, as Core\'s IsPushOnly reads it: an OP_RETURN carrying it is standard', async () => {
  const coin = await fund(d.devnet, alice, 20_000);
  const tx = buildTx([{ wallet: alice, coin }], [{ script: new Uint8Array([0x6a, 0x50, 0x01, 0x07]), amount: 0n }, { script: bob.script, amount: 19_000n }]);
  const [r] = await d.devnet.testMempoolAccept([tx]);
  assert.equal(r?.allowed, true, JSON.stringify(r));
});

void test('a package relayed again after a block confirmed it: each member `txn-already-known` (as Core 29.2 answers), which the port reads as landed', async () => {
  const coin = await fund(d.devnet, alice, 40_000);
  // As an exact accept's parent: an output the child does not spend stays in the UTXO set (a
  // parent whose outputs are all spent is refused `bad-txns-inputs-missingorspent` instead).
  const parent = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 20_000n }, { script: alice.script, amount: 19_000n }], { version: 3 });
  const child = buildTx([{ wallet: bob, coin: out(parent, 0, 20_000n) }], [{ script: bob.script, amount: 18_000n }], { version: 3 });
  assert.deepEqual((await d.devnet.bitcoin.submitPackage([parent, child])).members.map((m) => m.accepted), [true, true]);
  await d.devnet.mine(1);
  // Core 29.2's reply, recorded in the real-Core differential suite (its exact offer case).
  const reply = await d.devnet.submitPackage([parent, child]);
  assert.equal(reply.package_msg, 'transaction failed');
  assert.deepEqual(reply['tx-results'][wtxidOf(parent)], { txid: txidOf(parent), error: 'txn-already-known' });
  assert.deepEqual(reply['tx-results'][wtxidOf(child)], { txid: txidOf(child), error: 'txn-already-known' });
  // Sim day 9162: recovery relayed an exact accept's package just mined, read this as a refusal,
  // and released a sale the chain then confirmed. The node has both: they landed.
  const again = await d.devnet.bitcoin.submitPackage([parent, child]);
  assert.deepEqual(again.members, [
    { txid: txidOf(parent), accepted: true },
    { txid: txidOf(child), accepted: true },
  ]);
});
