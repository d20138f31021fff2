import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { TxRejected } from '../../src/chain/ports.js';
import { mempoolPolicyOf } from '../../src/chain/errors.js';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx, fund, openTestDevnet, txidOf, type Coin, type TestDevnet } from '../helpers/devnet.js';

const bidder = makeWallet('p2wpkh', 'pkg-bidder');
const seller = makeWallet('p2tr', 'pkg-seller');
let d: TestDevnet;

before(async () => {
  d = await openTestDevnet();
});
after(() => d.cleanup());

const out = (hexTx: string, vout: number, amount: bigint): Coin => ({ txid: txidOf(hexTx), vout, amount, prevTx: hex.decode(hexTx) });

/** A parent paying exactly its inputs (zero fee) and a child spending it that pays `childFee`. */
async function pair(version: number, childFee: bigint) {
  const coin = await fund(d.devnet, bidder, 50_000);
  const parent = buildTx([{ wallet: bidder, coin }], [{ script: seller.script, amount: 50_000n }], { version });
  const child = buildTx([{ wallet: seller, coin: out(parent, 0, 50_000n) }], [{ script: seller.script, amount: 50_000n - childFee }], { version });
  return { parent, child };
}

void test('a zero-fee TRUC parent alone is refused; with its child as a package it is accepted and mined', async () => {
  const { parent, child } = await pair(3, 500n);
  await assert.rejects(d.devnet.sendRawTransaction(parent), (e: TxRejected) => /^min relay fee not met, 0 < /.test(e.reason));
  await assert.rejects(d.devnet.sendRawTransaction(child), (e: TxRejected) => e.reason === 'bad-txns-inputs-missingorspent');
  const reply = await d.devnet.submitPackage([parent, child]);
  assert.equal(reply.package_msg, 'success');
  assert.deepEqual(Object.values(reply['tx-results']).map((r) => r.txid), [txidOf(parent), txidOf(child)]);
  assert.equal((await d.devnet.bitcoin.getMempoolEntry(txidOf(parent)))?.fee_sats, 0);
  assert.equal((await d.devnet.bitcoin.getMempoolEntry(txidOf(child)))?.ancestor_count, 2);
  // Submitting the same package again is fine: both members are already known.
  assert.equal((await d.devnet.submitPackage([parent, child])).package_msg, 'success');
  await d.devnet.mine(1);
  assert.equal((await d.devnet.bitcoin.getTransaction(txidOf(parent)))?.confirmations, 1);
  assert.equal((await d.devnet.bitcoin.getTransaction(txidOf(child)))?.confirmations, 1);
});

void test('the port submits a package and reports Core\'s message', async () => {
  const { parent, child } = await pair(3, 400n);
  const r = await d.devnet.bitcoin.submitPackage([parent, child]);
  assert.equal(r.message, 'success');
  assert.deepEqual(r.txids, [txidOf(parent), txidOf(child)]);
});

void test('a package whose total fee is below the floor is refused as a whole', async () => {
  const { parent, child } = await pair(3, 10n);
  const reply = await d.devnet.submitPackage([parent, child]);
  assert.equal(reply.package_msg, 'transaction failed');
  // Each member keeps the refusal it got: the parent alone (its own rate), the child as the package.
  const results = Object.values(reply['tx-results']);
  assert.match(results.find((r) => r.txid === txidOf(parent))!.error!, /^min relay fee not met, 0 < \d+/);
  const err = results.find((r) => r.txid === txidOf(child))!;
  assert.match(err.error!, /^min relay fee not met, 10 < \d+/);
  assert.equal(mempoolPolicyOf(err.error!), 'fee_floor');
  assert.equal(await d.devnet.bitcoin.getMempoolEntry(txidOf(parent)), null, 'nothing entered');
  await assert.rejects(d.devnet.bitcoin.submitPackage([parent, child]), (e: TxRejected) => e instanceof TxRejected && /^min relay fee not met/.test(e.reason));
});

void test('a zero-fee non-TRUC parent is refused even in a package (Core 28)', async () => {
  const { parent, child } = await pair(2, 1_000n);
  const reply = await d.devnet.submitPackage([parent, child]);
  assert.equal(reply.package_msg, 'transaction failed');
  assert.match(reply['tx-results'][Object.keys(reply['tx-results'])[0]!]!.error!, /^min relay fee not met, 0 < /);
});

void test('package topology: the child must come last and spend every parent (Core raises -25, no reply)', async () => {
  const { parent, child } = await pair(3, 500n);
  await assert.rejects(d.devnet.submitPackage([child, parent]), (e: TxRejected) => e instanceof TxRejected && e.rpcCode === -25 && /^package topology disallowed/.test(e.reason));
});

void test('a TRUC package parent of more than 10,000 vB is refused', async () => {
  const coin = await fund(d.devnet, bidder, 2_000_000);
  const outs = Array.from({ length: 330 }, () => ({ script: seller.script, amount: 5_000n }));
  const parent = buildTx([{ wallet: bidder, coin }], outs, { version: 3 });
  const child = buildTx([{ wallet: seller, coin: out(parent, 0, 5_000n) }], [{ script: seller.script, amount: 4_000n }], { version: 3 });
  const reply = await d.devnet.submitPackage([parent, child]);
  const err = Object.values(reply['tx-results']).find((r) => r.error)!;
  assert.match(err.error!, /^TRUC-violation, version=3 tx .* is too big: \d+ > 10000 virtual bytes/);
});
