/**
 * Contract of the Bitcoin Core adapter's relaying calls: testmempoolaccept,
 * sendrawtransaction (refusals as TxRejected, "already there" as success) and
 * submitpackage, against recorded replies and error objects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BitcoinCoreBackend, txidOfHex } from '../../../src/chain/bitcoin-core/index.js';
import { classifyRejection } from '../../../src/chain/errors.js';
import { TxRejected } from '../../../src/chain/ports.js';
import { errorReply, fixture, rpcHandler, txs, type RpcFixture } from './bitcoin-core-replay.js';
import { startReplayServer, type ReplayServer } from './replay-server.js';

void describe('BitcoinCoreBackend relay', () => {
  let server: ReplayServer;
  let btc: BitcoinCoreBackend;
  const calls: Array<{ method: string; params: unknown[] }> = [];

  /** Serve one sendrawtransaction/submitpackage/testmempoolaccept answer. */
  const serve = (method: string, reply: RpcFixture) => server.setHandler(rpcHandler({ [method]: () => reply }, calls));

  before(async () => {
    server = await startReplayServer(rpcHandler({}, calls));
    btc = new BitcoinCoreBackend({ url: `http://u:p@127.0.0.1:${server.port}`, retry: { retries: 2, backoffMs: 1 } });
  });
  after(() => server.close());

  void it('txidOfHex: double SHA-256 of the witness-stripped bytes', () => {
    assert.equal(txidOfHex(txs.tx_a.hex), txs.tx_a.txid);
    assert.equal(txidOfHex(txs.tx_b.hex), txs.tx_b.txid);
    assert.equal(txidOfHex(txs.genesis_coinbase.hex), txs.genesis_coinbase.txid);
    assert.equal(txidOfHex('00'), null);
  });

  void it('testAccept: allowed with vsize and fee; refused with the reject reason', async () => {
    serve('testmempoolaccept', fixture('testmempoolaccept-allowed'));
    assert.deepEqual(await btc.testAccept([txs.tx_a.hex]), [{ txid: txs.tx_a.txid, allowed: true, vsize: 141, fee_sats: 1670 }]);
    assert.deepEqual(calls.at(-1), { method: 'testmempoolaccept', params: [[txs.tx_a.hex]] });

    serve('testmempoolaccept', fixture('testmempoolaccept-rejected'));
    assert.deepEqual(await btc.testAccept([txs.tx_a.hex]), [{ txid: txs.tx_a.txid, allowed: false, reject_reason: 'txn-mempool-conflict' }]);
  });

  void it('testAccept: a package member left unevaluated reports the package error', async () => {
    serve('testmempoolaccept', fixture('testmempoolaccept-package'));
    assert.deepEqual(await btc.testAccept([txs.tx_a.hex, txs.tx_b.hex]), [
      { txid: txs.tx_a.txid, allowed: false, reject_reason: 'min relay fee not met' },
      { txid: txs.tx_b.txid, allowed: false, reject_reason: 'package-not-child-with-parents' },
    ]);
  });

  void it('testAccept: no transactions, no request', async () => {
    const n = server.requests.length;
    assert.deepEqual(await btc.testAccept([]), []);
    assert.equal(server.requests.length, n);
  });

  void it('broadcast: returns the txid the node answers', async () => {
    serve('sendrawtransaction', fixture('sendrawtransaction'));
    assert.equal(await btc.broadcast(txs.tx_a.hex), txs.tx_a.txid);
    assert.deepEqual(calls.at(-1), { method: 'sendrawtransaction', params: [txs.tx_a.hex] });
  });

  void it('broadcast: already confirmed (-27, both wordings) or already in the mempool is success', async () => {
    for (const name of ['already_in_chain', 'already_in_chain_legacy', 'already_in_mempool']) {
      serve('sendrawtransaction', errorReply(name));
      assert.equal(await btc.broadcast(txs.tx_b.hex), txs.tx_b.txid, name);
    }
  });

  const refusals: Array<[string, number, string]> = [
    ['min_relay_fee', -26, 'min relay fee not met, 100 < 141'],
    ['mempool_conflict', -26, 'txn-mempool-conflict'],
    ['too_long_chain', -26, 'too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]'],
    ['missing_inputs', -25, 'bad-txns-inputs-missingorspent'],
    ['decode_failed', -22, 'TX decode failed. Make sure the tx has at least one input.'],
  ];
  for (const [name, code, reason] of refusals) {
    void it(`broadcast: ${name} (${code}) → TxRejected with the node's reason, one attempt only`, async () => {
      serve('sendrawtransaction', errorReply(name));
      const n = server.requests.length;
      await assert.rejects(btc.broadcast(txs.tx_a.hex), (e: unknown) => {
        assert.ok(e instanceof TxRejected);
        assert.equal(e.reason, reason);
        assert.equal(e.rpcCode, code);
        assert.equal(e.txid, txs.tx_a.txid);
        return true;
      });
      assert.equal(server.requests.length - n, 1);
    });
  }

  void it('broadcast refusals classify as conflict or policy', async () => {
    serve('sendrawtransaction', errorReply('missing_inputs'));
    const e1 = (await btc.broadcast(txs.tx_a.hex).catch((e: unknown) => e)) as TxRejected;
    assert.deepEqual(classifyRejection(e1.reason), { kind: 'conflict' });
    serve('sendrawtransaction', errorReply('min_relay_fee'));
    const e2 = (await btc.broadcast(txs.tx_a.hex).catch((e: unknown) => e)) as TxRejected;
    assert.deepEqual(classifyRejection(e2.reason), { kind: 'policy', policy: 'fee_floor' });
  });

  void it('submitPackage: success lists the txids in package order', async () => {
    serve('submitpackage', fixture('submitpackage-success'));
    assert.deepEqual(await btc.submitPackage([txs.tx_a.hex, txs.tx_b.hex]), {
      txids: [txs.tx_a.txid, txs.tx_b.txid],
      message: 'success',
      members: [
        { txid: txs.tx_a.txid, accepted: true },
        { txid: txs.tx_b.txid, accepted: true },
      ],
      replaced: [],
    });
    assert.deepEqual(calls.at(-1), { method: 'submitpackage', params: [[txs.tx_a.hex, txs.tx_b.hex]] });
  });

  void it('submitPackage: a refused member → TxRejected with that member error', async () => {
    serve('submitpackage', fixture('submitpackage-failed'));
    await assert.rejects(btc.submitPackage([txs.tx_a.hex, txs.tx_b.hex]), (e: unknown) => {
      assert.ok(e instanceof TxRejected);
      assert.match(e.reason, /^TRUC-violation, /);
      assert.equal(e.txid, txs.tx_a.txid);
      assert.deepEqual(classifyRejection(e.reason), { kind: 'policy', policy: 'truc' });
      return true;
    });
  });

  void it('submitPackage: a parent in the mempool with its child refused is a result, not a refusal (Core validates members alone first)', async () => {
    serve('submitpackage', fixture('submitpackage-partial'));
    const r = await btc.submitPackage([txs.tx_a.hex, txs.tx_b.hex]);
    assert.equal(r.message, 'transaction failed');
    assert.deepEqual(r.members, [
      { txid: txs.tx_a.txid, accepted: true },
      { txid: txs.tx_b.txid, accepted: false, error: 'dust' },
    ]);
  });

  void it('submitPackage: a member Core left out of tx-results (Core 29 omits unevaluated ones) counts as refused', async () => {
    const reply = fixture('submitpackage-failed') as { result: { 'tx-results': Record<string, unknown> } };
    delete reply.result['tx-results']['b8aa71b65266bedf723a5f5dd84cb0695d1cb88ba612dae910d604ef86d9d153'];
    serve('submitpackage', reply as RpcFixture);
    await assert.rejects(btc.submitPackage([txs.tx_a.hex, txs.tx_b.hex]), (e: unknown) => e instanceof TxRejected && /^TRUC-violation/.test(e.reason));
  });

  void it('submitPackage: a topology error (-25) → TxRejected', async () => {
    serve('submitpackage', errorReply('package_topology'));
    await assert.rejects(btc.submitPackage([txs.tx_b.hex, txs.tx_a.hex]), (e: unknown) => {
      assert.ok(e instanceof TxRejected);
      assert.equal(e.rpcCode, -25);
      assert.match(e.reason, /^package topology disallowed/);
      return true;
    });
  });
});
