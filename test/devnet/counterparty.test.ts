import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { attachOutputScript, detachOutputScript } from '../../src/counterparty/attach-detach.js';
import { opReturnScript } from '../../src/counterparty/script-reader.js';
import { makeWallet } from '../helpers/wallets.js';
import { addressBalance, buildTx, checkoutTx, coinOf, fund, openTestDevnet, signListing, txidOf, utxoBalance, type TestDevnet } from '../helpers/devnet.js';

const issuer = makeWallet('p2wpkh', 'cp-issuer');
const seller = makeWallet('p2wpkh', 'cp-seller');
const seller2 = makeWallet('p2tr', 'cp-seller-2');
const buyer = makeWallet('p2tr', 'cp-buyer');
const legacy = makeWallet('p2pkh', 'cp-delivery');
let d: TestDevnet;
let asset: string;

before(async () => {
  d = await openTestDevnet({ attachFeeRaw: '0' });
  asset = (await d.devnet.issueAsset({ asset: 'PEPECASH', issuer: issuer.address, quantity_raw: '100', divisible: false, description: 'a card' })).asset;
  await d.devnet.credit(seller.address, asset, '10');
  await d.devnet.credit(seller2.address, asset, '10');
});
after(() => d.cleanup());

/** Attaches `qty` of PEPECASH from `w` to a fresh 330-sat output 0 of `w`; returns the asset UTXO. */
async function attach(w: typeof seller, qty: bigint, sighash: number = SigHash.ALL) {
  const coin = await fund(d.devnet, w, 20_000);
  const hex = buildTx([{ wallet: w, coin, sighash }], (key) => [
    { script: w.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset, quantity: qty, destinationVout: 0 }), amount: 0n },
    { script: w.script, amount: 18_000n },
  ]);
  await d.devnet.bitcoin.broadcast(hex);
  const [hash] = await d.devnet.mine(1);
  return { utxo: `${txidOf(hex)}:0`, txid: txidOf(hex), hash: hash! };
}

void test('issuance and credits are confirmed ledger state with Core-shaped asset info', async () => {
  const info = await d.devnet.counterparty.getAsset('PEPECASH');
  assert.equal(info?.supply_raw, '120');
  assert.equal(info?.issuer, issuer.address);
  assert.equal(info?.divisible, false);
  assert.equal(info?.asset_id, '121892899915');
  assert.equal(await addressBalance(d.devnet, issuer.address, asset), 100n);
  const sub = await d.devnet.issueAsset({ longname: 'PEPECASH.rare', issuer: issuer.address, quantity_raw: '5', divisible: false });
  assert.match(sub.asset, /^A\d{17,20}$/);
  assert.equal((await d.devnet.counterparty.getAsset('PEPECASH.rare'))?.asset, sub.asset);
  const picked = await d.devnet.issueAsset({ issuer: issuer.address, quantity_raw: '1', divisible: true });
  assert.match(picked.asset, /^A\d+$/);
  await assert.rejects(d.devnet.issueAsset({ asset: 'PEPECASH', issuer: seller.address, quantity_raw: '1', divisible: false }), /belongs to/);
});

void test('attach: the address balance moves onto output 0 of the attach transaction', async () => {
  const before = await addressBalance(d.devnet, seller.address, asset);
  const a = await attach(seller, 2n);
  assert.equal(await addressBalance(d.devnet, seller.address, asset), before - 2n);
  assert.equal(await utxoBalance(d.devnet, a.utxo, asset), 2n);
  assert.ok((await d.devnet.counterparty.getUtxosWithBalances([a.utxo, `${a.txid}:2`])).has(a.utxo));
  const height = (await d.devnet.bitcoin.getBlock(a.hash))!.height;
  const events = await d.devnet.counterparty.getBlockEvents(height, ['ATTACH_TO_UTXO', 'DEBIT', 'CREDIT']);
  assert.deepEqual(events.map((e) => e.event), ['DEBIT', 'CREDIT', 'ATTACH_TO_UTXO']);
  const p = events[2]!.params;
  assert.deepEqual([p.status, p.source, p.destination, p.destination_address, p.asset, p.quantity, p.fee_paid, p.block_index], ['valid', seller.address, a.utxo, seller.address, asset, 2, 0, height]);
  assert.equal(events[2]!.block_index, height);
  const rows = await d.devnet.counterparty.getAddressBalances(seller.address);
  assert.ok(rows.some((r) => r.utxo === a.utxo && r.address === seller.address && r.quantity_raw === '2'));
});

void test('move: spending the asset UTXO without a message moves it to the first non-OP_RETURN output', async () => {
  const a = await attach(seller, 1n);
  const fee = await fund(d.devnet, seller, 5_000);
  const hex = buildTx(
    [{ wallet: seller, coin: coinOf(d.devnet, a.txid, 0) }, { wallet: seller, coin: fee }],
    [{ script: opReturnScript(new TextEncoder().encode('hello')), amount: 0n }, { script: buyer.script, amount: 330n }, { script: seller.script, amount: 4_500n }],
  );
  await d.devnet.bitcoin.broadcast(hex);
  assert.equal(await utxoBalance(d.devnet, a.utxo, asset), 1n, 'mempool transactions have no ledger effect');
  const [hash] = await d.devnet.mine(1);
  const moved = `${txidOf(hex)}:1`;
  assert.equal(await utxoBalance(d.devnet, a.utxo, asset), 0n);
  assert.equal(await utxoBalance(d.devnet, moved, asset), 1n);
  const rows = await d.devnet.counterparty.getAddressBalances(buyer.address);
  assert.ok(rows.some((r) => r.utxo === moved && r.asset === asset));
  const height = (await d.devnet.bitcoin.getBlock(hash!))!.height;
  const [move] = await d.devnet.counterparty.getBlockEvents(height, ['UTXO_MOVE']);
  assert.deepEqual([move!.params.source, move!.params.destination, move!.params.destination_address, move!.params.send_type], [a.utxo, moved, buyer.address, 'move']);
});

void test('detach to a P2PKH address: the destination is a string, never a script', async () => {
  const a = await attach(seller, 1n);
  const fee = await fund(d.devnet, seller, 5_000);
  const hex = buildTx([{ wallet: seller, coin: coinOf(d.devnet, a.txid, 0) }, { wallet: seller, coin: fee }], (key) => [
    { script: seller.script, amount: 4_830n },
    { script: detachOutputScript({ input0Txid: key, destination: legacy.address, network: 'regtest' }), amount: 0n },
  ]);
  await d.devnet.bitcoin.broadcast(hex);
  await d.devnet.mine(1);
  assert.equal(await utxoBalance(d.devnet, a.utxo, asset), 0n);
  assert.equal(await utxoBalance(d.devnet, `${txidOf(hex)}:0`, asset), 0n, 'a detach never moves');
  assert.equal(await addressBalance(d.devnet, legacy.address, asset), 1n);
});

void test('a multi-input detaching sale: buyer ALL at input 0, two SINGLE|ANYONECANPAY listings, one detach', async () => {
  const a1 = await attach(seller, 1n);
  const a2 = await attach(seller2, 3n);
  const l1 = signListing(seller, coinOf(d.devnet, a1.txid, 0), 10_000n);
  const l2 = signListing(seller2, coinOf(d.devnet, a2.txid, 0), 20_000n);
  const pay = await fund(d.devnet, buyer, 50_000);
  const delivery = makeWallet('p2pkh', 'cp-sale-delivery');
  const hex = checkoutTx({
    buyer, coin: pay, listings: [l1, l2],
    head: (key) => ({ script: detachOutputScript({ input0Txid: key, destination: delivery.address, network: 'regtest' }), amount: 0n }),
    tail: () => [{ script: buyer.script, amount: 50_000n + 660n - 30_000n - 2_000n }],
  });
  const before1 = await addressBalance(d.devnet, seller.address, asset);
  await d.devnet.bitcoin.broadcast(hex);
  const [hash] = await d.devnet.mine(1);
  assert.equal(await addressBalance(d.devnet, delivery.address, asset), 4n);
  assert.equal(await utxoBalance(d.devnet, a1.utxo, asset), 0n);
  assert.equal(await utxoBalance(d.devnet, a2.utxo, asset), 0n);
  assert.equal(await addressBalance(d.devnet, seller.address, asset), before1, 'the seller is paid in BTC, not refunded');
  const sellerPaid = await d.devnet.bitcoin.getTxOut(txidOf(hex), 1);
  assert.equal(sellerPaid?.address, seller.address);
  assert.equal(sellerPaid?.value_sats, 10_000);
  const height = (await d.devnet.bitcoin.getBlock(hash!))!.height;
  const detaches = await d.devnet.counterparty.getBlockEvents(height, ['DETACH_FROM_UTXO']);
  assert.deepEqual(detaches.map((e) => [e.params.source, e.params.destination, e.params.quantity]), [[a1.utxo, delivery.address, 1], [a2.utxo, delivery.address, 3]]);
});

void test('a detach OP_RETURN after the listing pairs is ignored by Core: the balances stay on spent outputs', async () => {
  const a1 = await attach(seller, 1n);
  const l1 = signListing(seller, coinOf(d.devnet, a1.txid, 0), 10_000n);
  const pay = await fund(d.devnet, buyer, 50_000);
  const delivery = makeWallet('p2wpkh', 'cp-late-delivery');
  const hex = checkoutTx({ buyer, coin: pay, listings: [l1], tail: (key) => [
    { script: detachOutputScript({ input0Txid: key, destination: delivery.address, network: 'regtest' }), amount: 0n },
    { script: buyer.script, amount: 50_000n + 330n - 10_000n - 330n - 2_000n },
  ] });
  await d.devnet.bitcoin.broadcast(hex);
  await d.devnet.mine(1);
  assert.equal(await addressBalance(d.devnet, delivery.address, asset), 0n);
  assert.equal(await utxoBalance(d.devnet, a1.utxo, asset), 1n, 'still recorded on the spent listing output');
  assert.equal(await utxoBalance(d.devnet, `${txidOf(hex)}:0`, asset), 0n, 'and not moved either');
  assert.equal(d.devnet.api.transaction(txidOf(hex))?.transaction_type, 'detach');
});

void test('an attach whose input 0 is signed SINGLE|ANYONECANPAY is ignored by Counterparty', async () => {
  const before = await addressBalance(d.devnet, seller.address, asset);
  const a = await attach(seller, 1n, SigHash.SINGLE_ANYONECANPAY);
  assert.equal((await d.devnet.bitcoin.getTransaction(a.txid))?.confirmations, 1, 'valid Bitcoin');
  assert.equal(await addressBalance(d.devnet, seller.address, asset), before);
  assert.equal(await utxoBalance(d.devnet, a.utxo, asset), 0n);
  const height = (await d.devnet.bitcoin.getBlock(a.hash))!.height;
  assert.deepEqual(await d.devnet.counterparty.getBlockEvents(height, ['ATTACH_TO_UTXO']), []);
  assert.equal(d.devnet.api.transaction(a.txid), null, 'not a Counterparty transaction');
});

void test('an attach beyond the balance is invalid and changes nothing', async () => {
  const before = await addressBalance(d.devnet, seller.address, asset);
  const a = await attach(seller, before + 1n);
  assert.equal(await addressBalance(d.devnet, seller.address, asset), before);
  const height = (await d.devnet.bitcoin.getBlock(a.hash))!.height;
  const [ev] = await d.devnet.counterparty.getBlockEvents(height, ['ATTACH_TO_UTXO']);
  assert.equal(ev?.params.status, 'invalid: insufficient funds for transfer');
});

void test('events: NEW_BLOCK opens every block, indexes increase, API v2 pages newest first', () => {
  const page = d.devnet.api.events({ limit: 5 });
  assert.equal(page.result.length, 5);
  const idx = page.result.map((e) => e.event_index);
  assert.deepEqual(idx, [...idx].sort((a, b) => b - a));
  assert.equal(page.next_cursor, idx[4]! - 1);
  const all = d.devnet.state.ledger.events;
  all.forEach((e, i) => assert.equal(e.event_index, i));
  const tip = d.devnet.state.chain.height;
  const block = d.devnet.api.blockEvents(tip).result;
  assert.equal(block.at(-1)?.event, 'NEW_BLOCK');
  assert.equal(block[0]?.event, 'BLOCK_PARSED');
});
