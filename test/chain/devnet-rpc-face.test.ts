/**
 * The devnet's Bitcoin Core JSON-RPC face at the wire: legacy and 2.0
 * envelopes, HTTP statuses, batches and notifications, argument errors, the
 * verbosity forms of getblock/getrawtransaction, and optional Basic auth.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BitcoinCoreBackend } from '../../src/chain/bitcoin-core/index.js';
import { UpstreamUnavailable } from '../../src/chain/ports.js';
import { buildTx, fund, txidOf } from '../helpers/devnet.js';
import { makeWallet } from '../helpers/wallets.js';
import { postRpc, startDevnetFaces, type DevnetFaces } from './devnet-faces.js';

const dave = makeWallet('p2wpkh', 'rpc-face-dave');
let f: DevnetFaces;
let height: number;

before(async () => {
  f = await startDevnetFaces({ initialBlocks: 101 });
  height = (await f.btc.getTip()).height;
});
after(() => f.close());

void describe('JSON-RPC envelopes and statuses', () => {
  void it('legacy (no jsonrpc, or "1.0"): result and error both present, HTTP 200, newline-terminated JSON', async () => {
    for (const req of [{ id: 'a', method: 'getblockcount', params: [] }, { jsonrpc: '1.0', id: 'a', method: 'getblockcount' }]) {
      const r = await postRpc(f, req);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      assert.ok(r.text.endsWith('\n'));
      assert.deepEqual(r.body, { result: height, error: null, id: 'a' });
    }
  });

  void it('legacy errors: 500 for an RPC error, 404 for an unknown method', async () => {
    const e = await postRpc(f, { id: 1, method: 'getblockhash', params: [height + 10] });
    assert.equal(e.status, 500);
    assert.deepEqual(e.body, { result: null, error: { code: -8, message: 'Block height out of range' }, id: 1 });
    const nf = await postRpc(f, { id: 2, method: 'getnewaddress', params: [] });
    assert.equal(nf.status, 404);
    assert.deepEqual(nf.body, { result: null, error: { code: -32601, message: 'Method not found' }, id: 2 });
  });

  void it('JSON-RPC 2.0: HTTP 200 with only the result or only the error', async () => {
    assert.deepEqual((await postRpc(f, { jsonrpc: '2.0', id: 7, method: 'getblockcount' })).body, { jsonrpc: '2.0', result: height, id: 7 });
    const e = await postRpc(f, { jsonrpc: '2.0', id: 8, method: 'nosuchmethod' });
    assert.equal(e.status, 200);
    assert.deepEqual(e.body, { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 8 });
  });

  void it('a 2.0 notification (no id) runs and answers 204 with no body', async () => {
    const r = await postRpc(f, { jsonrpc: '2.0', method: 'getblockcount' });
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
  });

  void it('parse errors and invalid requests', async () => {
    const p = await postRpc(f, '{"method": ');
    assert.equal(p.status, 500);
    assert.deepEqual(p.body, { result: null, error: { code: -32700, message: 'Parse error' } });
    const v = await postRpc(f, { jsonrpc: '3.0', id: 1, method: 'getblockcount' });
    assert.equal(v.status, 400);
    assert.deepEqual(v.body, { result: null, error: { code: -32600, message: 'JSON-RPC version not supported' }, id: 1 });
    const m = await postRpc(f, { id: 1, params: [] });
    assert.deepEqual([m.status, (m.body as { error: unknown }).error], [400, { code: -32600, message: 'Missing method' }]);
  });

  void it('a batch answers 200 with one reply per non-notification member, in order', async () => {
    const r = await postRpc(f, [
      { id: 1, method: 'getblockcount' },
      { jsonrpc: '2.0', id: 2, method: 'getbestblockhash' },
      { jsonrpc: '2.0', method: 'getblockcount' },
      5,
      { jsonrpc: '2.0', id: 3, method: 'getblockhash', params: [-1] },
    ]);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, [
      { result: height, error: null, id: 1 },
      { jsonrpc: '2.0', result: (await f.btc.getTip()).hash, id: 2 },
      { result: null, error: { code: -32600, message: 'Invalid Request object' } },
      { jsonrpc: '2.0', error: { code: -8, message: 'Block height out of range' }, id: 3 },
    ]);
    assert.equal((await postRpc(f, [{ jsonrpc: '2.0', method: 'getblockcount' }])).status, 204);
    assert.deepEqual((await postRpc(f, [])).body, []);
  });

  void it('reads the body whatever the content type (bitcoin-cli style text/plain, or none)', async () => {
    const plain = await postRpc(f, { id: 1, method: 'getblockcount' }, { 'content-type': 'text/plain' });
    assert.deepEqual(plain.body, { result: height, error: null, id: 1 });
    const none = await fetch(`${f.base}/devnet/rpc`, { method: 'POST', body: Buffer.from(JSON.stringify({ id: 1, method: 'getblockcount' })) });
    assert.equal(none.status, 200);
  });

  void it('GET answers 405 like Core', async () => {
    const r = await fetch(`${f.base}/devnet/rpc`);
    assert.equal(r.status, 405);
    assert.equal(await r.text(), 'JSONRPC server handles only POST requests');
  });
});

void describe('arguments and methods', () => {
  const call = async (method: string, params: unknown) => (await postRpc(f, { jsonrpc: '2.0', id: 1, method, params })).body as { result?: unknown; error?: { code: number; message: string } };

  void it('named parameters, wrong types (-3), unknown names (-8), missing arguments (-1)', async () => {
    assert.equal((await call('getblockhash', { height: 0 })).result, '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
    const wrong = await call('getblockhash', ['1']);
    assert.equal(wrong.error?.code, -3);
    assert.match(wrong.error!.message, /^Wrong type passed:\n\{\n {4}"Position 1 \(height\)": "JSON value of type string is not of expected type number"\n\}$/);
    assert.deepEqual((await call('getblockhash', { heigth: 0 })).error, { code: -8, message: 'Unknown named parameter heigth' });
    assert.equal((await call('getblockhash', [])).error?.code, -1);
    assert.deepEqual((await call('getblock', ['xyz'])).error, { code: -8, message: "blockhash must be of length 64 (not 3, for 'xyz')" });
  });

  void it('getblock verbosity 0 (hex), 1 or true (txids), 2 (transactions with hex)', async () => {
    const tipHash = (await f.btc.getTip()).hash;
    const raw = (await call('getblock', [tipHash, 0])).result as string;
    assert.match(raw, /^[0-9a-f]+$/);
    const v1 = (await call('getblock', [tipHash, 1])).result as { hash: string; height: number; tx: string[] };
    assert.deepEqual([v1.hash, v1.height], [tipHash, height]);
    assert.ok(v1.tx.every((t) => typeof t === 'string'));
    assert.deepEqual((await call('getblock', [tipHash, true])).result, v1);
    const v2 = (await call('getblock', { blockhash: tipHash, verbosity: 2 })).result as { tx: Array<{ txid: string; hex: string }> };
    assert.deepEqual(v2.tx.map((t) => t.txid), v1.tx);
    assert.ok(raw.includes(v2.tx[0]!.hex), 'the block bytes hold the coinbase bytes');
    assert.deepEqual((await call('getblock', ['11'.repeat(32)])).error, { code: -5, message: 'Block not found' });
  });

  void it('getrawtransaction verbose 0/1, getrawmempool, gettxout null, getmempoolentry -5', async () => {
    const coin = await fund(f.t.devnet, dave, 30_000);
    const spend = buildTx([{ wallet: dave, coin }], [{ script: dave.script, amount: 29_000n }]);
    const txid = txidOf(spend);
    assert.equal((await call('sendrawtransaction', [spend])).result, txid);
    assert.equal((await call('getrawtransaction', [txid])).result, spend);
    assert.equal((await call('getrawtransaction', [txid, 0])).result, spend);
    const verbose = (await call('getrawtransaction', [txid, true])).result as { txid: string; hex: string; confirmations?: number };
    assert.deepEqual([verbose.txid, verbose.hex, verbose.confirmations], [txid, spend, undefined]);
    assert.deepEqual((await call('getrawmempool', [])).result, [txid]);
    assert.deepEqual(Object.keys((await call('getrawmempool', [true])).result as object), [txid]);
    assert.equal((await call('gettxout', [coin.txid, coin.vout])).result, null);
    assert.equal((await call('getmempoolentry', [coin.txid])).error?.code, -5);
    const confirmed = (await call('getrawtransaction', [coin.txid, 1])).result as { blockhash: string; confirmations: number };
    assert.equal(confirmed.confirmations, 1);
    assert.equal((await call('getrawtransaction', ['22'.repeat(32)])).error?.code, -5);
  });

  void it('a transaction of a block a reorg took away and no longer in the mempool: Core\'s txindex answer (the block\'s hash, 0 confirmations, no times), which the adapter reads as unknown', async () => {
    const coin = await fund(f.t.devnet, dave, 25_000);
    const spend = buildTx([{ wallet: dave, coin }], [{ script: dave.script, amount: 24_000n }]);
    const txid = txidOf(spend);
    await call('sendrawtransaction', [spend]);
    await f.t.devnet.mine(1);
    const mined = (await call('getrawtransaction', [txid, true])).result as { blockhash: string; confirmations: number };
    assert.equal(mined.confirmations, 1);
    await f.t.devnet.reorg(1);
    // Back in the mempool: the mempool's copy, no block.
    const pooled = (await call('getrawtransaction', [txid, true])).result as Record<string, unknown>;
    assert.deepEqual([pooled.blockhash, pooled.confirmations], [undefined, undefined]);
    assert.equal((await f.btc.getTransaction(txid))?.confirmations, 0);
    await f.t.devnet.dropMempool();
    const stale = (await call('getrawtransaction', [txid, true])).result as Record<string, unknown>;
    assert.deepEqual([stale.blockhash, stale.confirmations, stale.time, stale.blocktime, stale.hex], [mined.blockhash, 0, undefined, undefined, spend]);
    assert.equal((await call('getrawtransaction', [txid])).result, spend);
    assert.equal(await f.btc.getTransaction(txid), null);
    // Mined again: the active chain's block.
    await f.btc.broadcast(spend);
    await f.t.devnet.mine(1);
    const again = (await call('getrawtransaction', [txid, true])).result as { blockhash: string; confirmations: number };
    assert.equal(again.confirmations, 1);
    assert.notEqual(again.blockhash, mined.blockhash);
  });

  void it('Core’s validation errors on relay, fee and mining calls', async () => {
    assert.deepEqual((await call('estimatesmartfee', [0])).error, { code: -8, message: 'Invalid conf_target, must be between 1 and 1008' });
    assert.deepEqual((await call('estimatesmartfee', [2, 'fast'])).error?.code, -8);
    assert.deepEqual((await call('generatetoaddress', [1, 'bc1qnotanaddress'])).error, { code: -5, message: 'Error: Invalid address' });
    assert.deepEqual((await call('testmempoolaccept', [[]])).error, { code: -8, message: 'Array must contain between 1 and 25 transactions.' });
    assert.deepEqual((await call('testmempoolaccept', [['zz']])).error, { code: -22, message: 'TX decode failed: zz Make sure the tx has at least one input.' });
    assert.deepEqual((await call('sendrawtransaction', ['00'])).error, { code: -22, message: 'TX decode failed. Make sure the tx has at least one input.' });
    assert.deepEqual((await call('submitpackage', [[]])).error, { code: -8, message: 'Array must contain between 1 and 25 transactions.' });
    const a = buildTx([{ wallet: dave, coin: await fund(f.t.devnet, dave, 10_000) }], [{ script: dave.script, amount: 9_000n }]);
    const b = buildTx([{ wallet: dave, coin: await fund(f.t.devnet, dave, 10_000) }], [{ script: dave.script, amount: 9_000n }]);
    const topo = await call('submitpackage', [[a, b]]);
    assert.equal(topo.error?.code, -25);
    assert.match(topo.error!.message, /^package topology disallowed/);
    assert.equal((await call('invalidateblock', ['33'.repeat(32)])).error?.code, -5);
  });
});

void describe('Basic auth when configured', () => {
  let g: DevnetFaces;
  before(async () => {
    g = await startDevnetFaces({ initialBlocks: 1 }, { auth: { user: 'rpc', password: 's3cret' } });
  });
  after(() => g.close());

  void it('401 with WWW-Authenticate without or with wrong credentials; the adapter with the right ones works', async () => {
    const none = await postRpc(g, { id: 1, method: 'getblockcount' });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Basic realm="jsonrpc"');
    assert.equal((await g.btc.getTip()).height, 1);
    const wrong = new BitcoinCoreBackend({ url: `http://rpc:nope@${g.base.slice(7)}/devnet/rpc`, retry: { retries: 0 } });
    await assert.rejects(wrong.getTip(), (e: unknown) => e instanceof UpstreamUnavailable && /credentials/.test(e.message));
  });
});

void describe('the Core it claims to be', () => {
  void it('getnetworkinfo names Bitcoin Core 29.2, whose mempool rules (floors, packages, texts) the devnet follows', async () => {
    const r = await postRpc(f, { jsonrpc: '2.0', id: 'v', method: 'getnetworkinfo', params: [] });
    assert.equal(r.status, 200);
    const info = (r.body as { result: { version: number; subversion: string } }).result;
    assert.deepEqual([info.version, info.subversion], [290200, '/Satoshi:29.2.0/']);
  });
});
