/**
 * The devnet's JSON-RPC face answers `scantxoutset` as Bitcoin Core 29 does (rpc/blockchain.cpp):
 * status null and abort false while no scan runs, start over `addr(…)` descriptors with Core's
 * reply shape (each unspent's `desc` carries its BIP-380 checksum), confirmed coins only, Core's
 * errors on a bad action, a missing scan object or a wrong checksum; and the production
 * BitcoinCoreUtxoSource reads a wallet's coins through it, dropping one the mempool spends.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { BitcoinCoreUtxoSource } from '../../src/chain/bitcoin-core/index.js';
import { descriptorChecksum } from '../../src/chain/devnet/descriptor.js';
import { startDevnetFaces, type DevnetFaces } from './devnet-faces.js';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx, coinOf } from '../helpers/devnet.js';

let f: DevnetFaces;
before(async () => {
  f = await startDevnetFaces();
});
after(async () => {
  await f?.close();
});

test('BIP-380 checksum', () => {
  assert.equal(descriptorChecksum('raw(deadbeef)'), '89f8spxm');
});

test('scantxoutset: Core 29 reply shape, confirmed coins only, Core errors', async () => {
  const w = makeWallet('p2wpkh', 'scan-wallet');
  const d = f.t.devnet;
  const a = await d.faucet(w.address, 50_000);
  const b = await d.faucet(w.address, 70_000);
  assert.equal(await f.rpc.call('scantxoutset', ['status'], { idempotent: true }), null);
  assert.equal(await f.rpc.call('scantxoutset', ['abort'], { idempotent: true }), false);
  const desc = `addr(${w.address})`;
  const r = await f.rpc.call<any>('scantxoutset', ['start', [`${desc}#${descriptorChecksum(desc)}`]], { idempotent: true });
  assert.deepEqual(Object.keys(r).sort(), ['bestblock', 'height', 'success', 'total_amount', 'txouts', 'unspents']);
  assert.equal(r.success, true);
  assert.equal(r.bestblock, await f.rpc.call('getbestblockhash', [], { idempotent: true }));
  assert.equal(r.height, await f.rpc.call('getblockcount', [], { idempotent: true }));
  assert.ok(r.txouts >= 2);
  assert.equal(r.total_amount, 0.0012);
  const keys = r.unspents.map((u: any) => `${u.txid}:${u.vout}`).sort();
  assert.deepEqual(keys, [`${a.txid}:${a.vout}`, `${b.txid}:${b.vout}`].sort());
  for (const u of r.unspents) {
    assert.deepEqual(Object.keys(u).sort(), ['amount', 'blockhash', 'coinbase', 'confirmations', 'desc', 'height', 'scriptPubKey', 'txid', 'vout']);
    assert.equal(u.desc, `${desc}#${descriptorChecksum(desc)}`);
    assert.equal(u.scriptPubKey, Buffer.from(w.script).toString('hex'));
    assert.equal(u.blockhash, await f.rpc.call('getblockhash', [u.height], { idempotent: true }));
    assert.equal(u.confirmations, r.height - u.height + 1);
    assert.equal(u.coinbase, false);
  }
  // The object form, and an unconfirmed coin is not in the chainstate.
  const other = makeWallet('p2wpkh', 'scan-other');
  const coin = coinOf(d, a.txid, a.vout);
  const spend = buildTx([{ wallet: w, coin }], () => [{ script: other.script, amount: 49_000n }]);
  await f.rpc.call("sendrawtransaction", [spend], { idempotent: true });
  const obj = await f.rpc.call<any>('scantxoutset', ['start', [{ desc: `addr(${other.address})` }]], { idempotent: true });
  assert.deepEqual(obj.unspents, []);

  // The production adapter: confirmed coins, the one the mempool spends dropped.
  const src = new BitcoinCoreUtxoSource({ url: f.rpcUrl, cacheMs: 0 });
  assert.deepEqual((await src.getAddressUtxos(w.address)).map((u) => `${u.txid}:${u.vout}`), [`${b.txid}:${b.vout}`]);
  assert.match(await src.probe(), /scantxoutset/);

  const fails = async (params: unknown[], code: number, msg: RegExp) => {
    await assert.rejects(f.rpc.call('scantxoutset', params, { idempotent: true }), (e: any) => e.code === code && msg.test(e.rpcMessage));
  };
  await fails(['begin'], -8, /Invalid action 'begin'/);
  await fails(['start'], -1, /scanobjects argument is required/);
  await fails(['start', [`${desc}#qqqqqqqq`]], -5, /does not match computed checksum/);
  await fails(['start', ['addr(notanaddress)']], -5, /Address is not valid/);
});
