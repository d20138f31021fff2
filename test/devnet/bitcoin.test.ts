import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx, fund, openTestDevnet, txidOf } from '../helpers/devnet.js';

void test('a fresh devnet starts at the regtest genesis with 101 mined blocks', async (t) => {
  const d = await openTestDevnet();
  t.after(() => d.cleanup());
  const tip = await d.devnet.bitcoin.getTip();
  assert.equal(tip.height, 101);
  assert.equal(await d.devnet.bitcoin.getBlockHash(0), '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
  const info = d.devnet.rpc.getblockchaininfo();
  assert.equal(info.chain, 'regtest');
  assert.equal(info.blocks, 101);
  assert.equal(info.bestblockhash, tip.hash);
});

void test('faucet, then real P2WPKH, P2PKH and P2TR spends with every sighash, mined and confirmed', async (t) => {
  const d = await openTestDevnet();
  t.after(() => d.cleanup());
  const dn = d.devnet;
  const sink = makeWallet('p2wpkh', 'btc-sink');
  for (const family of ['p2wpkh', 'p2pkh', 'p2tr'] as const) {
    const w = makeWallet(family, 'btc-spender');
    const coin = await fund(dn, w, 100_000);
    const out = await dn.bitcoin.getTxOut(coin.txid, coin.vout);
    assert.equal(out?.confirmations, 1);
    assert.equal(out?.address, w.address);
    assert.equal(out?.value_sats, 100_000);
    const hex = buildTx([{ wallet: w, coin, sighash: family === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL_ANYONECANPAY }], [{ script: sink.script, amount: 99_000n }]);
    const txid = await dn.bitcoin.broadcast(hex);
    assert.equal(txid, txidOf(hex));
    assert.equal((await dn.bitcoin.getTransaction(txid))?.confirmations, 0);
    const entry = await dn.bitcoin.getMempoolEntry(txid);
    assert.equal(entry?.fee_sats, 1_000);
    assert.equal(entry?.ancestor_count, 1);
    assert.equal(await dn.bitcoin.getTxOut(coin.txid, coin.vout), null, 'spent in the mempool');
    assert.notEqual(await dn.bitcoin.getTxOut(coin.txid, coin.vout, false), null, 'still unspent on chain');
    assert.equal(await dn.bitcoin.broadcast(hex), txid, 'a known transaction is success');
    const [hash] = await dn.mine(1);
    const block = await dn.bitcoin.getBlock(hash!);
    assert.ok(block?.txs.some((x) => x.txid === txid));
    assert.equal((await dn.bitcoin.getTransaction(txid))?.confirmations, 1);
    assert.equal(await dn.bitcoin.getMempoolEntry(txid), null);
    assert.equal(await dn.bitcoin.broadcast(hex), txid, 'already in chain is success for the port');
  }
});

void test('SINGLE and NONE sighashes are valid Bitcoin (only Counterparty cares about input 0)', async (t) => {
  const d = await openTestDevnet();
  t.after(() => d.cleanup());
  const a = makeWallet('p2wpkh', 'sighash-a');
  const b = makeWallet('p2tr', 'sighash-b');
  const ca = await fund(d.devnet, a, 50_000);
  const cb = await fund(d.devnet, b, 50_000);
  const hex = buildTx(
    [{ wallet: a, coin: ca, sighash: SigHash.SINGLE_ANYONECANPAY }, { wallet: b, coin: cb, sighash: SigHash.NONE }],
    [{ script: a.script, amount: 49_000n }, { script: b.script, amount: 49_000n }],
  );
  await d.devnet.sendRawTransaction(hex);
  await d.devnet.mine(1);
  assert.equal((await d.devnet.bitcoin.getTransaction(txidOf(hex)))?.confirmations, 1);
});

void test('addressUtxos lists confirmed and mempool outputs and hides those the mempool spends', async (t) => {
  const d = await openTestDevnet();
  t.after(() => d.cleanup());
  const w = makeWallet('p2wpkh', 'utxos');
  const c1 = await fund(d.devnet, w, 10_000);
  const c2 = await fund(d.devnet, w, 20_000);
  const hex = buildTx([{ wallet: w, coin: c1 }], [{ script: w.script, amount: 9_000n }]);
  await d.devnet.sendRawTransaction(hex);
  const rows = await d.devnet.addressUtxos(w.address);
  assert.deepEqual(rows.map((r) => [r.value_sats, r.confirmations > 0]).sort(), [[20_000, true], [9_000, false]].sort());
  const port = await d.devnet.counterparty.getAddressUtxos(w.address);
  assert.equal(port.find((r) => r.txid === c2.txid)?.height, (await d.devnet.bitcoin.getTip()).height);
  assert.equal(port.find((r) => r.txid === txidOf(hex))?.height, null);
});

void test('interval mining mines on its own and stops', async (t) => {
  const d = await openTestDevnet({ blockIntervalMs: 20 });
  t.after(() => d.cleanup());
  const start = (await d.devnet.bitcoin.getTip()).height;
  d.devnet.startMining();
  // Poll rather than sleep a fixed time: a loaded machine (or PostgreSQL) mines more slowly.
  const deadline = Date.now() + 10_000;
  while ((await d.devnet.bitcoin.getTip()).height < start + 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  d.devnet.stopMining();
  await d.devnet.mine(1);
  const mid = (await d.devnet.bitcoin.getTip()).height;
  assert.ok(mid >= start + 3, `mined ${mid - start}`);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await d.devnet.bitcoin.getTip()).height, mid);
});
