import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { makeWallet } from '../helpers/wallets.js';
import { addressBalance, buildTx, fund, openTestDevnet, txidOf, utxoBalance } from '../helpers/devnet.js';

const seller = makeWallet('p2wpkh', 'persist-seller');
const payee = makeWallet('p2pkh', 'persist-payee');

void test('a restart keeps the chain, the ledger, the events and the mempool', async (t) => {
  const d = await openTestDevnet({ attachFeeRaw: '0' });
  t.after(() => d.cleanup());
  const { asset } = await d.devnet.issueAsset({ asset: 'KEEPCARD', issuer: seller.address, quantity_raw: '9', divisible: false });
  await d.devnet.credit(seller.address, 'XCP', '100000000');
  const coin = await fund(d.devnet, seller, 30_000);
  const attach = buildTx([{ wallet: seller, coin }], (key) => [
    { script: seller.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset, quantity: 4n, destinationVout: 0 }), amount: 0n },
    { script: seller.script, amount: 28_000n },
  ]);
  await d.devnet.bitcoin.broadcast(attach);
  await d.devnet.mine(2);
  await d.devnet.reorg(1);
  const pending = buildTx([{ wallet: seller, coin: { txid: txidOf(attach), vout: 2, amount: 28_000n, prevTx: Buffer.from(attach, 'hex') } }], [{ script: payee.script, amount: 27_000n }]);
  await d.devnet.bitcoin.broadcast(pending);

  const snapshot = (dn: typeof d.devnet) => ({
    tip: dn.rpc.getblockchaininfo(),
    blocks: dn.state.chain.blocks.map((b) => b.hash),
    utxos: [...dn.state.chain.utxos.keys()].sort(),
    events: dn.state.ledger.events,
    assets: dn.api.asset(asset),
    xcp: dn.api.asset('XCP'),
    balances: dn.api.addressBalances(seller.address),
    mempool: dn.rpc.getrawmempool(true),
    nextTxIndex: dn.state.ledger.nextTxIndex,
  });
  const before = structuredClone(snapshot(d.devnet));
  const dn = await d.reopen({ attachFeeRaw: '0' });
  assert.deepEqual(snapshot(dn), before);
  assert.equal(await utxoBalance(dn, `${txidOf(attach)}:0`, asset), 4n);
  assert.equal(await addressBalance(dn, seller.address, asset), 5n);
  assert.equal((await dn.bitcoin.getTransaction(txidOf(pending)))?.confirmations, 0);
  await dn.mine(1);
  assert.equal((await dn.bitcoin.getTransaction(txidOf(pending)))?.confirmations, 1);
});

void test('pending control operations survive a restart and land in the next block', async (t) => {
  const d = await openTestDevnet();
  t.after(() => d.cleanup());
  await d.devnet.credit(seller.address, 'XCP', '5');
  const tip = await d.devnet.bitcoin.getTip();
  await d.devnet.invalidateBlock(tip.hash);
  assert.equal(await addressBalance(d.devnet, seller.address, 'XCP'), 0n);
  assert.equal(d.devnet.state.pendingOps.length, 1);
  const dn = await d.reopen();
  assert.equal(dn.state.pendingOps.length, 1);
  await dn.mine(1);
  assert.equal(await addressBalance(dn, seller.address, 'XCP'), 5n);
  const again = await d.reopen();
  assert.equal(again.state.pendingOps.length, 0);
  assert.equal(await addressBalance(again, seller.address, 'XCP'), 5n);
});
