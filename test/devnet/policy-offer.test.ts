import { test } from 'node:test';
import assert from 'node:assert/strict';
import { p2tr, Script, SigHash, TAPROOT_UNSPENDABLE_KEY, TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { networkParams } from '../../src/bitcoin/networks.js';
import { attachOutputScript, detachOutputScript } from '../../src/counterparty/attach-detach.js';
import { makeWallet, signInput, signTapLeaf, walletInput } from '../helpers/wallets.js';
import { addressBalance, buildTx, coinOf, fund, openTestDevnet, txidOf, utxoBalance } from '../helpers/devnet.js';

const bidder = makeWallet('p2tr', 'po-bidder');
const market = makeWallet('p2tr', 'po-market');
const seller = makeWallet('p2wpkh', 'po-seller');
const receive = makeWallet('p2pkh', 'po-receive');
const platform = makeWallet('p2wpkh', 'po-platform');

/** The collection-offer escrow: leaf <bidder> CHECKSIGVERIFY <market> CHECKSIG (market signature first in the witness). */
function escrow() {
  const leaf = Script.encode([bidder.xOnly, 'CHECKSIGVERIFY', market.xOnly, 'CHECKSIG']);
  const refund = Script.encode([144, 'CHECKSEQUENCEVERIFY', 'DROP', bidder.xOnly, 'CHECKSIG']);
  const pay = p2tr(TAPROOT_UNSPENDABLE_KEY, [{ script: leaf }, { script: refund }], networkParams('regtest'), true);
  const entry = pay.tapLeafScript!.find(([, s]) => Buffer.from(s.subarray(0, -1)).equals(leaf))!;
  return { leaf, script: pay.script, control: TaprootControlBlock.encode(entry[0]) };
}

void test('a collection-offer acceptance: zero-fee TRUC parent into a tapscript escrow, child detaches via the market\'s ALL on input 0', async (t) => {
  const d = await openTestDevnet({ attachFeeRaw: '0' });
  t.after(() => d.cleanup());
  const dn = d.devnet;
  const { asset } = await dn.issueAsset({ asset: 'POLICYCARD', issuer: seller.address, quantity_raw: '1', divisible: false });

  // The seller's attached, confirmed, one-unit asset UTXO.
  const sc = await fund(dn, seller, 10_000);
  const attach = buildTx([{ wallet: seller, coin: sc }], (key) => [
    { script: seller.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
    { script: seller.script, amount: 9_000n },
  ]);
  await dn.bitcoin.broadcast(attach);
  await dn.mine(1);
  const assetCoin = coinOf(dn, txidOf(attach), 0);

  // Parent (v3, zero fee): the bidder's funding plus a market anchor into the escrow.
  const e = escrow();
  const funding = await fund(dn, bidder, 60_000);
  const anchor = await fund(dn, market, 1_000);
  const parent = buildTx([{ wallet: bidder, coin: funding, sighash: SigHash.DEFAULT }, { wallet: market, coin: anchor, sighash: SigHash.DEFAULT }],
    [{ script: e.script, amount: 61_000n }], { version: 3 });
  const escrowValue = 61_000n;

  // Child (v3): in 0 the escrow (bidder SINGLE|ACP over output 0, market ALL), in 1 the asset UTXO.
  const child = new Transaction({ version: 3, allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
  child.addInput({ txid: txidOf(parent), index: 0, witnessUtxo: { script: e.script, amount: escrowValue } });
  child.addInput(walletInput(seller, { txid: assetCoin.txid, index: 0, amount: 330n }));
  child.addOutput({ script: detachOutputScript({ input0Txid: txidOf(parent), destination: receive.address, network: 'regtest' }), amount: 0n });
  child.addOutput({ script: seller.script, amount: 55_000n });
  child.addOutput({ script: platform.script, amount: 1_000n });
  const prevouts = [{ script: e.script, amount: escrowValue }, { script: seller.script, amount: 330n }];
  const sigBidder = signTapLeaf(child, 0, bidder.privateKey, e.leaf, prevouts, SigHash.SINGLE_ANYONECANPAY);
  const sigMarket = signTapLeaf(child, 0, market.privateKey, e.leaf, prevouts, SigHash.DEFAULT);
  child.updateInput(0, { finalScriptWitness: [sigMarket, sigBidder, e.leaf, e.control] }, true);
  signInput(child, 1, seller, SigHash.ALL);
  child.finalizeIdx(1);

  await assert.rejects(dn.bitcoin.broadcast(parent), /min relay fee not met/);
  const result = await dn.bitcoin.submitPackage([parent, child.hex]);
  assert.equal(result.message, 'success');
  await dn.mine(1);

  assert.equal(await addressBalance(dn, receive.address, asset), 1n, 'delivered to a P2PKH receive address');
  assert.equal(await utxoBalance(dn, assetCoin.txid + ':0', asset), 0n);
  const paid = await dn.bitcoin.getTxOut(child.id, 1);
  assert.equal(paid?.address, seller.address);
  assert.equal(paid?.value_sats, 55_000);
});
