import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { makeWallet } from '../helpers/wallets.js';
import { addressBalance, buildTx, coinOf, fund, openTestDevnet, txidOf, utxoBalance, type TestDevnet } from '../helpers/devnet.js';

const seller = makeWallet('p2wpkh', 'reorg-seller');
const other = makeWallet('p2tr', 'reorg-other');

async function setup(): Promise<{ d: TestDevnet; asset: string }> {
  const d = await openTestDevnet({ attachFeeRaw: '0' });
  const { asset } = await d.devnet.issueAsset({ asset: 'REORGCARD', issuer: seller.address, quantity_raw: '5', divisible: false });
  return { d, asset };
}

function attachHex(coin: Awaited<ReturnType<typeof fund>>, asset: string): string {
  return buildTx([{ wallet: seller, coin }], (key) => [
    { script: seller.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset, quantity: 2n, destinationVout: 0 }), amount: 0n },
    { script: seller.script, amount: coin.amount - 1_330n },
  ]);
}

void test('a reorg returns transactions to the mempool, changes hashes and rolls the ledger back exactly', async (t) => {
  const { d, asset } = await setup();
  t.after(() => d.cleanup());
  const dn = d.devnet;
  const coin = await fund(dn, seller, 10_000);
  const hex = attachHex(coin, asset);
  const txid = txidOf(hex);
  const eventsBefore = structuredClone(dn.state.ledger.events);
  await dn.bitcoin.broadcast(hex);
  const [hash] = await dn.mine(1);
  const h = (await dn.bitcoin.getBlock(hash!))!.height;
  assert.equal(await utxoBalance(dn, `${txid}:0`, asset), 2n);
  assert.equal(await addressBalance(dn, seller.address, asset), 3n);
  assert.ok((await dn.counterparty.getBlockEvents(h, ['ATTACH_TO_UTXO'])).length === 1);

  const r = await dn.reorg(1);
  assert.equal(r.disconnected, 1);
  assert.equal(r.tip.height, h + 1);
  assert.notEqual(await dn.bitcoin.getBlockHash(h), hash, 'the height got a new block');
  assert.equal(await dn.bitcoin.getBlock(hash!), null);
  const back = await dn.bitcoin.getTransaction(txid);
  assert.equal(back?.confirmations, 0, 'back in the mempool');
  assert.equal(await dn.bitcoin.getTxOut(txid, 0, false), null);
  assert.notEqual(await dn.bitcoin.getTxOut(coin.txid, coin.vout, false), null, 'its input is unspent on chain again');
  // Counterparty: exactly the state before the attach, events included.
  assert.equal(await utxoBalance(dn, `${txid}:0`, asset), 0n);
  assert.equal(await addressBalance(dn, seller.address, asset), 5n);
  assert.deepEqual(await dn.counterparty.getBlockEvents(h, ['ATTACH_TO_UTXO']), []);
  const kept = dn.state.ledger.events.slice(0, eventsBefore.length);
  assert.deepEqual(kept, eventsBefore);
  dn.state.ledger.events.forEach((e, i) => assert.equal(e.event_index, i));

  const [again] = await dn.mine(1);
  const h2 = (await dn.bitcoin.getBlock(again!))!.height;
  assert.equal(h2, h + 2);
  assert.equal(await utxoBalance(dn, `${txid}:0`, asset), 2n);
  const [ev] = await dn.counterparty.getBlockEvents(h2, ['ATTACH_TO_UTXO']);
  assert.equal(ev?.params.block_index, h2, 'events carry the block that confirmed them');
});

void test('a deeper reorg re-applies control operations and drops spends of vanished coinbases', async (t) => {
  const { d, asset } = await setup();
  t.after(() => d.cleanup());
  const dn = d.devnet;
  const [cbBlock] = await dn.mine(1, other.address);
  // A coinbase output is spendable 100 blocks after its own (Core's COINBASE_MATURITY).
  await dn.mine(99);
  const cb = (await dn.bitcoin.getBlock(cbBlock!))!.txs[0]!;
  const cbCoin = coinOf(dn, cb.txid, 0);
  const spendCb = buildTx([{ wallet: other, coin: cbCoin, sighash: 0 }], [{ script: other.script, amount: cbCoin.amount - 1_000n }]);
  await dn.sendRawTransaction(spendCb);
  await dn.credit(seller.address, asset, '7');
  const creditHeight = (await dn.bitcoin.getTip()).height;
  const pay = await dn.faucet(other.address, 25_000);
  assert.equal(await addressBalance(dn, seller.address, asset), 12n);

  const tipBefore = await dn.bitcoin.getTip();
  const depth = tipBefore.height - (await dn.bitcoin.getBlock(cbBlock!))!.height + 1;
  await dn.reorg(depth);
  assert.equal(await dn.bitcoin.getTransaction(txidOf(spendCb)), null, 'its coinbase is gone, so is the spend');
  assert.equal((await dn.bitcoin.getTransaction(pay.txid))?.confirmations, 0, 'the faucet payment waits in the mempool');
  assert.equal(await addressBalance(dn, seller.address, asset), 12n, 'the credit was re-applied');
  const credits = dn.api.events({ names: ['CREDIT'] }).result.filter((e) => e.params.calling_function === 'devnet credit');
  assert.equal(credits.length, 1);
  assert.notEqual(credits[0]!.block_index, creditHeight);
  assert.equal((await dn.bitcoin.getTip()).height, tipBefore.height + 1);
});

void test('invalidateBlock disconnects the block and its descendants and mines nothing', async (t) => {
  const { d, asset } = await setup();
  t.after(() => d.cleanup());
  const dn = d.devnet;
  const coin = await fund(dn, seller, 10_000);
  const hex = attachHex(coin, asset);
  await dn.bitcoin.broadcast(hex);
  const [b1] = await dn.mine(1);
  await dn.mine(2);
  const h1 = (await dn.bitcoin.getBlock(b1!))!.height;
  const r = await dn.invalidateBlock(b1!);
  assert.deepEqual(r, { disconnected: 3, tip: await dn.bitcoin.getTip() });
  assert.equal(r.tip.height, h1 - 1);
  assert.equal((await dn.bitcoin.getTransaction(txidOf(hex)))?.confirmations, 0);
  assert.equal(await addressBalance(dn, seller.address, asset), 5n);
  await assert.rejects(dn.invalidateBlock('00'.repeat(32)), /Block not found/);
});
