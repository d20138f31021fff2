/**
 * Contract of the Bitcoin Core adapter's reads against recorded Core replies
 * served over real HTTP: parsed values, "not found" answers, fee conversion and
 * the Basic auth header taken from the URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BitcoinCoreBackend } from '../../../src/chain/bitcoin-core/index.js';
import { errorReply, fixture, rpcHandler, txs, type RpcFixture, type RpcTable } from './bitcoin-core-replay.js';
import { startReplayServer, type ReplayServer } from './replay-server.js';

const H870 = (fixture('getblockhash').result as string);

const FORGOTTEN = { txid: 'cc'.repeat(32), block: 'dd'.repeat(32) };
const STALE = { txid: 'ee'.repeat(32), block: 'ff'.repeat(32) };
/** Core 29.2 with -txindex, recorded: a transaction mined in a block a reorg took away, then lost from the mempool (a restart). */
const STALE_ONLY = fixture('getrawtransaction-stale-block').result as { txid: string; blockhash: string; confirmations: number };
const patched = (name: string, fields: object): RpcFixture => {
  const f = fixture(name);
  return { ...f, result: { ...(f.result as object), ...fields } };
};

const table: RpcTable = {
  getblockchaininfo: () => fixture('getblockchaininfo'),
  getblockhash: ([h]) => (h === 870000 ? fixture('getblockhash') : errorReply('height_out_of_range')),
  getblock: ([hash, verbosity]) => {
    assert.equal(verbosity, 2);
    if (hash === H870) return fixture('getblock-870000-v2');
    if (hash === '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f') return fixture('getblock-genesis-v2');
    return errorReply('block_not_found');
  },
  getrawtransaction: ([txid, verbose]) => {
    assert.equal(verbose, true);
    if (txid === txs.tx_a.txid) return fixture('getrawtransaction-confirmed');
    if (txid === txs.tx_b.txid) return fixture('getrawtransaction-mempool');
    // Confirmed in a block that a reorganization took off the active chain before the header read.
    if (txid === STALE_ONLY.txid) return fixture('getrawtransaction-stale-block');
    if (txid === FORGOTTEN.txid || txid === STALE.txid) return patched('getrawtransaction-confirmed', { txid, blockhash: txid === STALE.txid ? STALE.block : FORGOTTEN.block });
    return errorReply('tx_not_found');
  },
  getblockheader: ([hash]) => (hash === H870 ? fixture('getblockheader') : hash === STALE.block ? patched('getblockheader', { hash, confirmations: -1 }) : errorReply('block_not_found')),
  gettxout: ([txid, n, mempool]) => {
    assert.equal(mempool, true);
    if (txid === txs.tx_a.txid && n === 0) return fixture('gettxout');
    if (txid === 'ab'.repeat(32)) return fixture('gettxout-big');
    return fixture('gettxout-null');
  },
  getmempoolentry: ([txid]) => (txid === txs.tx_b.txid ? fixture('getmempoolentry') : errorReply('not_in_mempool')),
  estimatesmartfee: ([target]) => fixture(`estimatesmartfee-${target as number}`),
  getmempoolinfo: () => fixture('getmempoolinfo'),
};

void describe('BitcoinCoreBackend reads', () => {
  let server: ReplayServer;
  let btc: BitcoinCoreBackend;
  const calls: Array<{ method: string; params: unknown[] }> = [];

  before(async () => {
    server = await startReplayServer(rpcHandler(table, calls));
    // A password with characters that must be percent-encoded in a URL.
    btc = new BitcoinCoreBackend({ url: `http://rpcuser:p%40ss%3Aw0rd@127.0.0.1:${server.port}/`, retry: { retries: 0 } });
  });
  after(() => server.close());

  void it('getTip reads getblockchaininfo and sends Basic auth from the URL', async () => {
    assert.deepEqual(await btc.getTip(), { height: 870000, hash: H870 });
    const req = server.requests.at(-1)!;
    assert.equal(req.method, 'POST');
    assert.equal(req.headers.authorization, `Basic ${Buffer.from('rpcuser:p@ss:w0rd').toString('base64')}`);
    assert.equal(req.headers['content-type'], 'application/json');
    const body = JSON.parse(req.body) as { method: string; params: unknown[]; jsonrpc: string };
    assert.equal(body.method, 'getblockchaininfo');
    assert.deepEqual(body.params, []);
  });

  void it('getBlockHash: a hash, or null past the tip (-8)', async () => {
    assert.equal(await btc.getBlockHash(870000), H870);
    assert.equal(await btc.getBlockHash(870001), null);
  });

  void it('getBlock (verbosity 2): header fields and every transaction with its hex', async () => {
    const block = await btc.getBlock(H870);
    assert.ok(block);
    assert.equal(block.height, 870000);
    assert.equal(block.hash, H870);
    assert.equal(block.prev_hash, (fixture('getblock-870000-v2').result as { previousblockhash: string }).previousblockhash);
    assert.equal(block.time, 1730000000);
    assert.equal(block.txs.length, 2);
    assert.deepEqual(block.txs[1], { txid: txs.tx_a.txid, hex: txs.tx_a.hex });
  });

  void it('getBlock: genesis has an all-zero prev_hash; an unknown hash is null (-5)', async () => {
    const genesis = await btc.getBlock('000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
    assert.equal(genesis?.prev_hash, '0'.repeat(64));
    assert.deepEqual(genesis?.txs, [{ txid: txs.genesis_coinbase.txid, hex: txs.genesis_coinbase.hex }]);
    assert.equal(await btc.getBlock('11'.repeat(32)), null);
  });

  void it('getTransaction: confirmed (height from its block header), mempool, unknown', async () => {
    assert.deepEqual(await btc.getTransaction(txs.tx_a.txid), {
      txid: txs.tx_a.txid,
      hex: txs.tx_a.hex,
      confirmations: 3,
      block_hash: H870,
      block_height: 870000,
    });
    assert.deepEqual(await btc.getTransaction(txs.tx_b.txid), {
      txid: txs.tx_b.txid,
      hex: txs.tx_b.hex,
      confirmations: 0,
      block_hash: null,
      block_height: null,
    });
    assert.equal(await btc.getTransaction('22'.repeat(32)), null);
  });

  void it('getTransaction: a block reorganized away between the two reads (header at -1 confirmations, or unknown) is unconfirmed, not an error', async () => {
    for (const t of [STALE, FORGOTTEN]) {
      const got = await btc.getTransaction(t.txid);
      assert.deepEqual([got?.confirmations, got?.block_hash, got?.block_height], [0, null, null], t.txid);
    }
  });

  void it('getTransaction: txindex\'s entry for a block off the active chain (0 confirmations, a block hash) is in neither the mempool nor the chain: null', async () => {
    assert.equal(STALE_ONLY.confirmations, 0);
    assert.match(STALE_ONLY.blockhash, /^[0-9a-f]{64}$/);
    const before = calls.length;
    assert.equal(await btc.getTransaction(STALE_ONLY.txid), null);
    // Known from the reply alone: no header read.
    assert.deepEqual(calls.slice(before).map((c) => c.method), ['getrawtransaction']);
  });

  void it('getTxOut: exact satoshis, script and address; null when spent', async () => {
    assert.deepEqual(await btc.getTxOut(txs.tx_a.txid, 0), {
      txid: txs.tx_a.txid,
      vout: 0,
      value_sats: 330,
      script_hex: '00140e60df329219b54dff72279ef4a8cd252916a091',
      address: 'bc1qpesd7v5jrx65mlmjy700f2xdy553dgy3jk3w6v',
      confirmations: 3,
      coinbase: false,
    });
    const big = await btc.getTxOut('ab'.repeat(32), 0);
    assert.equal(big?.value_sats, 2_099_999_997_690_000);
    assert.equal(big?.coinbase, true);
    assert.equal(await btc.getTxOut(txs.tx_a.txid, 1), null);
  });

  void it('getMempoolEntry: fee from fees.base, ancestor counts; null when not in the mempool', async () => {
    assert.deepEqual(await btc.getMempoolEntry(txs.tx_b.txid), {
      txid: txs.tx_b.txid,
      vsize: 141,
      fee_sats: 500,
      ancestor_count: 2,
      descendant_count: 1,
      time: 1730000123,
    });
    assert.equal(await btc.getMempoolEntry(txs.tx_a.txid), null);
  });

  void it('estimateFees: one batch, BTC/kvB → sat/vB, floor from getmempoolinfo', async () => {
    const before = server.requests.length;
    calls.length = 0;
    assert.deepEqual(await btc.estimateFees(), { fastest: 31.234, half_hour: 12.001, hour: 8, economy: 2.001, minimum: 1 });
    assert.equal(server.requests.length - before, 1, 'a single HTTP request');
    assert.deepEqual(
      calls.map((c) => [c.method, ...c.params]),
      [['estimatesmartfee', 1], ['estimatesmartfee', 3], ['estimatesmartfee', 6], ['estimatesmartfee', 144], ['getmempoolinfo']],
    );
  });

  void it('estimateFees: targets without data fall back to slower rates and never go below the floor', async () => {
    const sparse = new BitcoinCoreBackend({ url: server.url, retry: { retries: 0 }, feeTargets: { fastest: 1, half_hour: 2, hour: 5, economy: 1008 } });
    server.setHandler(
      rpcHandler({
        ...table,
        estimatesmartfee: ([t]) => (t === 1 ? fixture('estimatesmartfee-nodata') : t === 2 ? fixture('estimatesmartfee-6') : fixture('estimatesmartfee-nodata')),
        getmempoolinfo: () => {
          const info = fixture('getmempoolinfo');
          (info.result as { mempoolminfee: number }).mempoolminfee = 0.00003;
          return info;
        },
      }),
    );
    try {
      // economy and hour: no data → floor (3); half_hour: 8; fastest: no data → half_hour.
      assert.deepEqual(await sparse.estimateFees(), { fastest: 8, half_hour: 8, hour: 3, economy: 3, minimum: 3 });
    } finally {
      server.setHandler(rpcHandler(table, calls));
    }
  });
});
