/**
 * The production adapters end to end: BitcoinCoreBackend and
 * CounterpartyCoreBackend talk over real HTTP to the devnet's protocol faces,
 * backed by a real Devnet on a test store. Real signed transactions are
 * broadcast through the Bitcoin Core adapter, mined with generatetoaddress, and
 * the resulting ledger is read through the Counterparty adapter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hex } from '@scure/base';
import { CounterpartyCoreBackend } from '../../src/chain/counterparty-core/index.js';
import { classifyRejection } from '../../src/chain/errors.js';
import { TxRejected } from '../../src/chain/ports.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { buildTx, fund, txidOf, type Coin } from '../helpers/devnet.js';
import { makeWallet } from '../helpers/wallets.js';
import { startDevnetFaces, type DevnetFaces } from './devnet-faces.js';

const alice = makeWallet('p2wpkh', 'proto-alice');
const bob = makeWallet('p2tr', 'proto-bob');
const carol = makeWallet('p2wpkh', 'proto-carol');
/** Above 2^53: JSON.parse alone would round it. */
const BIG_SUPPLY = '9007199254740993123';

const outCoin = (hexTx: string, vout: number, amount: bigint): Coin => ({ txid: txidOf(hexTx), vout, amount, prevTx: hex.decode(hexTx) });

let f: DevnetFaces;
const mine = async (n = 1, address = carol.address) => f.rpc.call<string[]>('generatetoaddress', [n, address], { idempotent: false });

before(async () => {
  f = await startDevnetFaces({ attachFeeRaw: '0' });
});
after(() => f.close());

void describe('Bitcoin Core adapter ↔ devnet RPC face', () => {
  let coin: Coin;
  let spendHex: string;

  void it('reads the tip, blocks and outputs the engine holds', async () => {
    assert.deepEqual(await f.btc.getTip(), await f.t.devnet.bitcoin.getTip());
    const genesis = await f.btc.getBlockHash(0);
    assert.equal(genesis, '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
    assert.equal((await f.btc.getBlock(genesis!))?.prev_hash, '0'.repeat(64));
    assert.equal(await f.btc.getBlockHash(1_000_000), null);
    coin = await fund(f.t.devnet, alice, 100_000);
    assert.deepEqual(await f.btc.getTxOut(coin.txid, coin.vout), {
      txid: coin.txid, vout: coin.vout, value_sats: 100_000, script_hex: hex.encode(alice.script), address: alice.address, confirmations: 1, coinbase: false,
    });
  });

  void it('test-accepts, broadcasts and sees a real signed transaction in the mempool', async () => {
    spendHex = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 99_000n }]);
    const txid = txidOf(spendHex);
    const [accept] = await f.btc.testAccept([spendHex]);
    assert.equal(accept?.allowed, true);
    assert.equal(accept?.fee_sats, 1_000);
    assert.equal(await f.btc.broadcast(spendHex), txid);
    assert.equal(await f.btc.broadcast(spendHex), txid, 'already in the mempool is success');
    assert.deepEqual(await f.btc.getTransaction(txid), { txid, hex: spendHex, confirmations: 0, block_hash: null, block_height: null });
    const entry = await f.btc.getMempoolEntry(txid);
    assert.equal(entry?.fee_sats, 1_000);
    assert.equal(entry?.ancestor_count, 1);
    assert.equal(await f.btc.getTxOut(coin.txid, coin.vout), null, 'spent in the mempool');
    assert.notEqual(await f.btc.getTxOut(coin.txid, coin.vout, false), null, 'unspent on chain');
  });

  void it('mines it with generatetoaddress; the adapter reads it confirmed; re-broadcast is success', async () => {
    const txid = txidOf(spendHex);
    const [hash] = await mine();
    const block = await f.btc.getBlock(hash!);
    assert.ok(block?.txs.some((t) => t.txid === txid && t.hex === spendHex));
    const tip = await f.btc.getTip();
    assert.equal(tip.hash, hash);
    assert.deepEqual(await f.btc.getTransaction(txid), { txid, hex: spendHex, confirmations: 1, block_hash: hash, block_height: tip.height });
    assert.equal(await f.btc.getMempoolEntry(txid), null);
    assert.equal(await f.btc.broadcast(spendHex), txid, 'already confirmed (-27) is success');
  });

  void it('refusals arrive as TxRejected with Core reasons that classify as conflict or fee floor', async () => {
    const doubleSpend = buildTx([{ wallet: alice, coin }], [{ script: alice.script, amount: 98_000n }]);
    const spent = await f.btc.broadcast(doubleSpend).catch((e: unknown) => e);
    assert.ok(spent instanceof TxRejected);
    assert.equal(spent.rpcCode, -25);
    assert.deepEqual(classifyRejection(spent.reason), { kind: 'conflict' });

    const c2 = await fund(f.t.devnet, alice, 50_000);
    const free = buildTx([{ wallet: alice, coin: c2 }], [{ script: bob.script, amount: 50_000n }]);
    const fee = await f.btc.broadcast(free).catch((e: unknown) => e);
    assert.ok(fee instanceof TxRejected);
    assert.match(fee.reason, /^min relay fee not met/);
    assert.deepEqual(classifyRejection(fee.reason), { kind: 'policy', policy: 'fee_floor' });

    await f.btc.broadcast(buildTx([{ wallet: alice, coin: c2 }], [{ script: bob.script, amount: 49_000n }]));
    const rival = await f.btc.broadcast(buildTx([{ wallet: alice, coin: c2 }], [{ script: carol.script, amount: 49_000n }])).catch((e: unknown) => e);
    assert.ok(rival instanceof TxRejected);
    assert.deepEqual(classifyRejection(rival.reason), { kind: 'conflict' });
  });

  void it('submits a zero-fee TRUC parent with its child as one package', async () => {
    const c = await fund(f.t.devnet, alice, 40_000);
    const parent = buildTx([{ wallet: alice, coin: c }], [{ script: bob.script, amount: 40_000n }], { version: 3 });
    const child = buildTx([{ wallet: bob, coin: outCoin(parent, 0, 40_000n) }], [{ script: bob.script, amount: 39_500n }], { version: 3 });
    await assert.rejects(f.btc.broadcast(parent), (e: unknown) => e instanceof TxRejected && /^min relay fee not met/.test(e.reason));
    assert.deepEqual(await f.btc.submitPackage([parent, child]), { txids: [txidOf(parent), txidOf(child)], message: 'success' });
    assert.equal((await f.btc.getMempoolEntry(txidOf(child)))?.ancestor_count, 2);
  });

  void it('estimates fees from estimatesmartfee and the mempool floor (sat/vB)', async () => {
    assert.deepEqual(await f.btc.estimateFees(), { fastest: 5, half_hour: 3, hour: 2, economy: 1, minimum: 1 });
  });

  void it('invalidateblock returns the block’s transactions to the mempool', async () => {
    const [hash] = await mine();
    const height = (await f.btc.getTip()).height;
    const inBlock = (await f.btc.getBlock(hash!))!.txs.slice(1).map((t) => t.txid);
    assert.ok(inBlock.length >= 2, 'the package was mined');
    assert.equal(await f.rpc.call('invalidateblock', [hash], { idempotent: false }), null);
    assert.equal((await f.btc.getTip()).height, height - 1);
    assert.equal(await f.btc.getBlock(hash!), null);
    for (const txid of inBlock) assert.equal((await f.btc.getTransaction(txid))?.confirmations, 0);
    await mine();
  });
});

void describe('Counterparty Core adapter ↔ devnet API v2 face', () => {
  let asset: string;
  let issuedAt: number;

  void it('reports the status headers and the tip', async () => {
    const tip = await f.btc.getTip();
    assert.deepEqual(await f.cp.getStatus(), { counterparty_height: tip.height, bitcoin_height: tip.height, ready: true });
  });

  void it('reads an issuance above 2^53 exactly: balance, asset, block events', async () => {
    asset = (await f.t.devnet.issueAsset({ asset: 'PROTOCARD', issuer: alice.address, quantity_raw: BIG_SUPPLY, divisible: false, description: 'big' })).asset;
    issuedAt = (await f.btc.getTip()).height;
    const balances = await f.cp.getAddressBalances(alice.address);
    assert.deepEqual(balances, [{ asset, asset_longname: null, quantity_raw: BIG_SUPPLY, utxo: null, address: alice.address }]);
    const info = await f.cp.getAsset(asset);
    assert.equal(info?.supply_raw, BIG_SUPPLY);
    assert.equal(info?.issuer, alice.address);
    assert.equal(info?.divisible, false);
    assert.equal(info?.first_issuance_block_index, issuedAt);
    assert.equal(await f.cp.getAsset('NOSUCHCARD'), null);
    const events = await f.cp.getBlockEvents(issuedAt);
    const credit = events.find((e) => e.event === 'CREDIT');
    assert.equal(credit?.params.quantity, BIG_SUPPLY);
    assert.equal(credit?.block_index, issuedAt);
    // Core's plain event params carry no block time (verbose adds it; NEW_BLOCK records its own).
    const plain = (list: typeof events) =>
      list.map((e) => (e.event === 'NEW_BLOCK' ? e : { ...e, params: Object.fromEntries(Object.entries(e.params).filter(([k]) => k !== 'block_time')) }));
    assert.deepEqual(events, plain(await f.t.devnet.counterparty.getBlockEvents(issuedAt)), 'same events as the engine port');
  });

  void it('attaches through the Bitcoin Core adapter and reads the UTXO balance through Counterparty', async () => {
    const c = await fund(f.t.devnet, alice, 20_000);
    const attachHex = buildTx([{ wallet: alice, coin: c }], (key) => [
      { script: alice.script, amount: 330n },
      { script: attachOutputScript({ input0Txid: key, asset, quantity: 1_000n, destinationVout: 0 }), amount: 0n },
      { script: alice.script, amount: 18_000n },
    ]);
    const txid = await f.btc.broadcast(attachHex);
    const [hash] = await mine();
    const height = (await f.btc.getBlock(hash!))!.height;
    const utxo = `${txid}:0`;
    assert.deepEqual(await f.cp.getUtxoBalances(utxo), [{ asset, asset_longname: null, quantity_raw: '1000', utxo, address: alice.address }]);
    assert.deepEqual([...(await f.cp.getUtxosWithBalances([utxo, `${txid}:2`]))], [utxo]);
    const attach = await f.cp.getBlockEvents(height, ['ATTACH_TO_UTXO']);
    assert.equal(attach.length, 1);
    assert.equal(attach[0]!.params.destination, utxo);
    const rows = await f.cp.getAddressBalances(alice.address);
    assert.deepEqual(rows.map((r) => [r.utxo, r.quantity_raw]).sort(), [[null, (BigInt(BIG_SUPPLY) - 1000n).toString()], [utxo, '1000']].sort());
    const utxos = await f.cp.getAddressUtxos(alice.address);
    const attached = utxos.find((u) => u.txid === txid && u.vout === 0);
    assert.deepEqual(attached, { txid, vout: 0, value_sats: 330, height, confirmations: 1 });
    assert.equal(await f.cp.estimateAttachXcpFee(), '0');
    const holders = await f.cp.getAssetBalances(asset);
    assert.deepEqual(
      holders.map((r) => [r.address, r.utxo, r.quantity_raw]).sort(),
      [[alice.address, null, (BigInt(BIG_SUPPLY) - 1000n).toString()], [alice.address, utxo, '1000']].sort(),
      'the asset view: detached and attached rows, the UTXO owned by alice',
    );
    assert.deepEqual(holders, await f.t.devnet.counterparty.getAssetBalances(asset), 'same rows as the engine port');
    assert.deepEqual(await f.cp.getAssetBalances('NOSUCHCARD'), []);
  });

  void it('follows cursors to the end with a small page size', async () => {
    const paged = new CounterpartyCoreBackend({ url: `${f.base}/devnet/counterparty`, pageSize: 1, retry: { retries: 0 } });
    assert.deepEqual(await paged.getAddressBalances(alice.address), await f.cp.getAddressBalances(alice.address));
    assert.deepEqual(await paged.getBlockEvents(issuedAt), await f.cp.getBlockEvents(issuedAt));
    assert.deepEqual(await paged.getAssetBalances(asset), await f.cp.getAssetBalances(asset));
  });
});
