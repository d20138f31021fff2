/**
 * The devnet following a node (src/chain/core-follow), here a devnet served over its Bitcoin
 * Core JSON-RPC face standing in for bitcoind (the real-core lane runs the same follower against
 * a real Core): its chain is the node's block for block, control actions go to the node,
 * issuances ride the node's next block, attaches the node mines move balances in its ledger, its
 * mempool mirrors the node's, and a reorg on the node is followed back to the fork.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { CoreFollower } from '../../src/chain/core-follow/follower.js';
import { serveFollowerFace } from '../../src/chain/core-follow/serve.js';
import { CounterpartyCoreBackend } from '../../src/chain/counterparty-core/index.js';
import { buildTx, coinOf, txidOf } from '../helpers/devnet.js';
import { testStore, type TestStoreHandle } from '../helpers/store.js';
import { makeWallet } from '../helpers/wallets.js';
import { startDevnetFaces, type DevnetFaces } from './devnet-faces.js';

const holder = makeWallet('p2wpkh', 'follow-holder');
let node: DevnetFaces;
let store: TestStoreHandle;
let f: CoreFollower;

before(async () => {
  node = await startDevnetFaces();
  store = await testStore();
  f = await CoreFollower.open(store.store, { rpcUrl: node.rpcUrl, attachFeeRaw: '0' });
});
after(async () => {
  await f.close();
  await store.cleanup();
  await node.close();
});

const nodeTip = () => node.t.devnet.state.chain.tip();
const ourTip = () => f.devnet.state.chain.tip();

test('follows the node block for block from genesis', async () => {
  assert.equal(ourTip().height, nodeTip().height);
  assert.equal(ourTip().hash, nodeTip().hash);
  assert.equal(f.devnet.state.chain.block(50)!.hash, node.t.devnet.state.chain.block(50)!.hash);
});

test('the faucet pays from the miner\'s mature coins on the node; an issuance rides the node\'s next block; an attach the node mines moves the unit in the ledger', async () => {
  const { txid, vout } = await f.faucet(holder.address, 50_000);
  assert.equal((await node.btc.getTransaction(txid))?.confirmations, 1, 'paid and mined on the node');
  const { asset } = await f.issueAsset({ issuer: holder.address, quantity_raw: '3', divisible: false });
  assert.equal(ourTip().hash, nodeTip().hash);
  assert.equal((await f.chain.counterparty.getAsset(asset))?.supply_raw, '3');

  const coin = coinOf(node.t.devnet, txid, vout);
  const attach = buildTx([{ wallet: holder, coin }], (key) => [
    { script: holder.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
    { script: holder.script, amount: 48_000n },
  ]);
  await node.btc.broadcast(attach);
  // Unconfirmed on the node: the follower's mempool mirrors it (address UTXOs), the ledger waits.
  const rows = await f.chain.counterparty.getAddressUtxos(holder.address);
  assert.ok(rows.some((r) => r.txid === txidOf(attach) && r.confirmations === 0), JSON.stringify(rows));
  assert.deepEqual(await f.chain.counterparty.getUtxoBalances(`${txidOf(attach)}:0`), []);
  await f.mine(1);
  const held = await f.chain.counterparty.getUtxoBalances(`${txidOf(attach)}:0`);
  assert.deepEqual(held.map((r) => [r.asset, r.quantity_raw]), [[asset, '1']]);

  // The API v2 face, as the market's production adapter reads it.
  const face = await serveFollowerFace(f);
  try {
    const cp = new CounterpartyCoreBackend({ url: face.url, retry: { retries: 0 } });
    assert.deepEqual((await cp.getUtxoBalances(`${txidOf(attach)}:0`)).map((r) => [r.asset, r.quantity_raw]), [[asset, '1']]);
    assert.equal((await cp.getStatus()).counterparty_height, nodeTip().height);
  } finally {
    await face.close();
  }
});

test('a reorg on the node is followed back to the fork; an issuance of a disconnected block rides the next one', async () => {
  const { asset } = await f.issueAsset({ issuer: holder.address, quantity_raw: '5', divisible: false });
  const before = nodeTip().height;
  const r = await f.reorg(2);
  assert.equal(r.tip.height, before + 1);
  assert.equal(ourTip().hash, nodeTip().hash, 'the follower is on the node\'s new branch');
  assert.equal((await f.chain.counterparty.getAsset(asset))?.supply_raw, '5', 'the issuance was applied again on the new branch');
  // A block the node mines after a reorg under the follower's feet (the follower did not ask): caught up on the next read.
  const hash = nodeTip().hash;
  await node.t.devnet.invalidateBlock(hash);
  await node.t.devnet.mine(2);
  await f.chain.counterparty.getStatus();
  assert.equal(ourTip().hash, nodeTip().hash);
});
