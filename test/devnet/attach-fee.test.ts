import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import type { DevnetOptions } from '../../src/chain/devnet/index.js';
import { makeWallet } from '../helpers/wallets.js';
import { addressBalance, buildTx, fund, openTestDevnet, txidOf, type TestDevnet } from '../helpers/devnet.js';

const seller = makeWallet('p2wpkh', 'fee-seller');

async function setup(options: DevnetOptions) {
  const d = await openTestDevnet(options);
  const { asset } = await d.devnet.issueAsset({ asset: 'FEECARD', issuer: seller.address, quantity_raw: '50', divisible: false });
  return { d, asset };
}

async function attachTx(d: TestDevnet, asset: string, qty = 1n): Promise<string> {
  const coin = await fund(d.devnet, seller, 10_000);
  return buildTx([{ wallet: seller, coin }], (key) => [
    { script: seller.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset, quantity: qty, destinationVout: 0 }), amount: 0n },
    { script: seller.script, amount: 8_500n },
  ]);
}

void test('the dynamic fee: the block that parses the attach charges what the previous period implies', async (t) => {
  // A 2-block period with thresholds 0 and 2: two attaches in the window give x = 1, the sigmoid's midpoint (0.5 XCP).
  const { d, asset } = await setup({ attachGas: { periodBlocks: 2, lowerThreshold: 0, upperThreshold: 2 } });
  t.after(() => d.cleanup());
  const dn = d.devnet;
  await dn.credit(seller.address, 'XCP', '100000000');
  assert.equal((await dn.counterparty.estimateAttachXcpFee()), '0');
  const first = [await attachTx(d, asset), await attachTx(d, asset)];
  for (const h of first) await dn.bitcoin.broadcast(h);
  await dn.mine(1);
  assert.equal(await addressBalance(dn, seller.address, 'XCP'), 100_000_000n, 'no fee yet');
  const quoted = await dn.counterparty.estimateAttachXcpFee();
  assert.equal(quoted, '50000000');

  const paid = await attachTx(d, asset);
  await dn.bitcoin.broadcast(paid);
  const [hash] = await dn.mine(1);
  assert.equal(await addressBalance(dn, seller.address, 'XCP'), 50_000_000n);
  const height = (await dn.bitcoin.getBlock(hash!))!.height;
  const ev = await dn.counterparty.getBlockEvents(height, ['ATTACH_TO_UTXO', 'DEBIT']);
  assert.deepEqual(ev.map((e) => [e.event, e.params.action ?? e.params.fee_paid]), [['DEBIT', 'attach to utxo fee'], ['DEBIT', 'attach to utxo'], ['ATTACH_TO_UTXO', 50_000_000]]);
  const destroyed = d.devnet.api.blockEvents(height, { names: ['ASSET_DESTRUCTION'] }).result;
  assert.equal(destroyed[0]?.params.quantity, 50_000_000);
  assert.equal((await dn.counterparty.getAsset('XCP'))?.supply_raw, '50000000', 'the fee is destroyed');
  assert.equal(dn.api.transaction(txidOf(paid))?.transaction_type, 'attach');
});

void test('an attach that cannot pay the fee is invalid', async (t) => {
  const { d, asset } = await setup({ attachFeeRaw: '1000' });
  t.after(() => d.cleanup());
  const hex = await attachTx(d, asset);
  await d.devnet.bitcoin.broadcast(hex);
  const [hash] = await d.devnet.mine(1);
  const height = (await d.devnet.bitcoin.getBlock(hash!))!.height;
  const [ev] = await d.devnet.counterparty.getBlockEvents(height, ['ATTACH_TO_UTXO']);
  assert.equal(ev?.params.status, 'invalid: insufficient funds for fee');
  assert.equal(await addressBalance(d.devnet, seller.address, asset), 50n);
});

void test('a configured fixed fee is charged as is', async (t) => {
  const { d, asset } = await setup({ attachFeeRaw: '12345' });
  t.after(() => d.cleanup());
  await d.devnet.credit(seller.address, 'XCP', '20000');
  assert.equal(await d.devnet.counterparty.estimateAttachXcpFee(), '12345');
  await d.devnet.bitcoin.broadcast(await attachTx(d, asset));
  await d.devnet.mine(1);
  assert.equal(await addressBalance(d.devnet, seller.address, 'XCP'), 20_000n - 12_345n);
});
