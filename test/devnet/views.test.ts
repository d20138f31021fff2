import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { DevnetRpcError } from '../../src/chain/devnet/index.js';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx, fund, openTestDevnet, txidOf, type TestDevnet } from '../helpers/devnet.js';

const w = makeWallet('p2wpkh', 'views');
let d: TestDevnet;
let attachTxid: string;
let pendingTxid: string;

before(async () => {
  d = await openTestDevnet({ attachFeeRaw: '0', feeEstimates: { fastest: 7 } });
  await d.devnet.issueAsset({ asset: 'VIEWCARD', issuer: w.address, quantity_raw: '3', divisible: false });
  const coin = await fund(d.devnet, w, 40_000);
  const hex = buildTx([{ wallet: w, coin }], (key) => [
    { script: w.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset: 'VIEWCARD', quantity: 1n, destinationVout: 0 }), amount: 0n },
    { script: w.script, amount: 39_000n },
  ]);
  attachTxid = txidOf(hex);
  await d.devnet.sendRawTransaction(hex);
  await d.devnet.mine(1);
  const coin2 = await fund(d.devnet, w, 10_000);
  const pending = buildTx([{ wallet: w, coin: coin2 }], [{ script: w.script, amount: 9_000n }]);
  pendingTxid = txidOf(pending);
  await d.devnet.sendRawTransaction(pending);
});
after(() => d.cleanup());

void test('getblock verbosity 2 and getrawtransaction look like Bitcoin Core', () => {
  const tx = d.devnet.rpc.getrawtransaction(attachTxid, true) as Record<string, any>;
  const block = d.devnet.rpc.getblock(tx.blockhash, 2) as Record<string, any>;
  assert.equal(block.height, d.devnet.rpc.getblockcount() - 1);
  assert.equal(block.tx[0].vin[0].coinbase.length > 0, true);
  const t = block.tx.find((x: { txid: string }) => x.txid === attachTxid);
  assert.equal(t.fee, 0.0000067);
  assert.deepEqual(t.vout.map((o: any) => o.scriptPubKey.type), ['witness_v0_keyhash', 'nulldata', 'witness_v0_keyhash']);
  assert.equal(t.vout[0].scriptPubKey.address, w.address);
  assert.equal(t.vout[0].value, 0.0000033);
  assert.match(t.vout[1].scriptPubKey.asm, /^OP_RETURN [0-9a-f]+$/);
  assert.equal(tx.confirmations, 2);
  assert.equal(typeof d.devnet.rpc.getblock(tx.blockhash, 0), 'string');
  assert.throws(() => d.devnet.rpc.getblockhash(10_000), (e: DevnetRpcError) => e.code === -8);
  assert.throws(() => d.devnet.rpc.getrawtransaction('ab'.repeat(32)), (e: DevnetRpcError) => e.code === -5);
});

void test('gettxout, mempool and fee views', () => {
  const out = d.devnet.rpc.gettxout(attachTxid, 0);
  assert.equal(out?.confirmations, 2);
  assert.equal(out?.scriptPubKey.address, w.address);
  assert.equal(d.devnet.rpc.gettxout(attachTxid, 1), null, 'OP_RETURN outputs are not coins');
  assert.deepEqual(d.devnet.rpc.getrawmempool(), [pendingTxid]);
  const e = d.devnet.rpc.getmempoolentry(pendingTxid);
  assert.equal(e.ancestorcount, 1);
  assert.equal(e.fees.base, 0.00001);
  assert.equal(d.devnet.rpc.getmempoolinfo().size, 1);
  assert.deepEqual(d.devnet.rpc.estimatesmartfee(1), { feerate: 0.00007, blocks: 1 });
});

void test('Counterparty API v2 views: balances, utxos, asset, blocks, mempool events', () => {
  const api = d.devnet.api;
  const utxo = `${attachTxid}:0`;
  assert.deepEqual(api.utxoBalances(utxo).map(({ rowid: _rowid, ...row }) => row), [{ address: null, asset: 'VIEWCARD', asset_longname: null, quantity: 1, utxo, utxo_address: w.address }]);
  assert.deepEqual(api.addressBalances(w.address, 'address').map((r) => [r.asset, r.quantity]), [['VIEWCARD', 2]]);
  assert.equal(api.addressBalances(w.address, 'all').length, 2);
  assert.deepEqual(api.utxosWithBalances([utxo, `${attachTxid}:2`]), { [utxo]: true, [`${attachTxid}:2`]: false });
  const asset = api.asset('VIEWCARD')!;
  assert.equal(asset.supply, 3);
  assert.equal(asset.issuer, w.address);
  assert.equal(api.lastBlock()?.block_index, d.devnet.rpc.getblockcount());
  assert.equal(api.info().counterparty_height, d.devnet.rpc.getblockcount());
  const rows = api.bitcoinAddressUtxos(w.address, true);
  assert.ok(rows.some((r) => r.txid === pendingTxid && r.confirmations === 0));
  assert.ok(!api.bitcoinAddressUtxos(w.address).some((r) => r.txid === pendingTxid));
});

void test('mempool events preview what an unconfirmed move would do, with block_index 9999999', async () => {
  const moveFee = await fund(d.devnet, w, 5_000);
  const move = buildTx(
    [{ wallet: w, coin: { txid: attachTxid, vout: 0, amount: 330n, prevTx: Buffer.from(d.devnet.rpc.getrawtransaction(attachTxid) as string, 'hex') } }, { wallet: w, coin: moveFee }],
    [{ script: w.script, amount: 4_830n }],
  );
  await d.devnet.sendRawTransaction(move);
  const events = d.devnet.api.mempoolEvents(['UTXO_MOVE']);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.params.block_index, 9_999_999);
  assert.equal(events[0]!.tx_hash, txidOf(move));
  assert.equal(d.devnet.api.utxoBalances(`${attachTxid}:0`).length, 1, 'confirmed state is untouched');
});
