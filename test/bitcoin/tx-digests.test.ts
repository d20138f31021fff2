/** TxDigests (shared midstates once per transaction) gives scure's and the BIPs' digests, byte for byte. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS, type Prevout } from '../../src/bitcoin/transaction.js';
import { TxDigests } from '../../src/bitcoin/tx-digests.js';
import { VECTORS_DIR } from '../helpers/fixtures.js';

const bip341 = JSON.parse(readFileSync(`${VECTORS_DIR}/bip341-wallet.json`, 'utf8')) as {
  keyPathSpending: {
    given: { rawUnsignedTx: string; utxosSpent: { scriptPubKey: string; amountSats: number }[] };
    inputSpending: { given: { txinIndex: number; hashType: number }; intermediary: { sigHash: string } }[];
  }[];
};
const bip143 = JSON.parse(readFileSync(`${VECTORS_DIR}/bip143-p2wpkh.json`, 'utf8')) as {
  unsigned_tx: string; input_index: number; amount_sats: number; hash_type: number; script_code: string; sighash: string;
};

void test('BIP-341 keyPathSpending: every input digest equals the vector sigHash', () => {
  const ks = bip341.keyPathSpending[0]!;
  const prevouts: Prevout[] = ks.given.utxosSpent.map((u) => ({ script: hex.decode(u.scriptPubKey), amount: BigInt(u.amountSats) }));
  const d = new TxDigests(Transaction.fromRaw(hex.decode(ks.given.rawUnsignedTx), READ_TX_OPTS), prevouts);
  for (const s of ks.inputSpending) {
    assert.equal(hex.encode(d.witnessV1(s.given.txinIndex, s.given.hashType)), s.intermediary.sigHash, `input ${s.given.txinIndex}`);
  }
});

void test('BIP-143 native P2WPKH: the vector sighash', () => {
  const d = new TxDigests(Transaction.fromRaw(hex.decode(bip143.unsigned_tx), READ_TX_OPTS), []);
  const code = hex.decode(bip143.script_code).subarray(1);
  assert.equal(hex.encode(d.witnessV0(bip143.input_index, code, bip143.hash_type, BigInt(bip143.amount_sats))), bip143.sighash);
});

/** A transaction with 5 inputs and 3 outputs (so SINGLE has inputs with and without an output). */
function wideTx(): { tx: Transaction; prevouts: Prevout[] } {
  const tx = new Transaction({ allowUnknownOutputs: true, version: 2, lockTime: 850_123 });
  const prevouts: Prevout[] = [];
  for (let i = 0; i < 5; i++) {
    tx.addInput({ txid: hex.encode(new Uint8Array(32).fill(i + 1)), index: i * 3, sequence: 0xfffffffd - i });
    prevouts.push({ script: hex.decode(i % 2 ? '5120' + 'ab'.repeat(32) : '0014' + 'cd'.repeat(20)), amount: 10_000n * BigInt(i + 1) });
  }
  for (let o = 0; o < 3; o++) tx.addOutput({ script: hex.decode('0014' + String(o).repeat(40)), amount: 5_000n + BigInt(o) });
  return { tx, prevouts };
}

void test('witnessV0 equals scure preimageWitnessV0 for every input and hash type, undefined types included', () => {
  const { tx, prevouts } = wideTx();
  const d = new TxDigests(tx, prevouts);
  const code = hex.decode('76a914' + 'ee'.repeat(20) + '88ac');
  for (let i = 0; i < 5; i++) {
    for (const t of [0x00, 0x01, 0x02, 0x03, 0x04, 0x41, 0x81, 0x82, 0x83, 0xc3]) {
      assert.equal(hex.encode(d.witnessV0(i, code, t, prevouts[i]!.amount)), hex.encode(tx.preimageWitnessV0(i, code, t, prevouts[i]!.amount)), `input ${i} type ${t}`);
    }
  }
});

void test('witnessV1 equals scure preimageWitnessV1 for every input, hash type, leaf and annex', () => {
  const { tx, prevouts } = wideTx();
  const d = new TxDigests(tx, prevouts);
  const leaf = hex.decode('20' + '11'.repeat(32) + 'ac');
  const annex = hex.decode('50' + '22'.repeat(10));
  const scripts = prevouts.map((p) => p.script);
  const amounts = prevouts.map((p) => p.amount);
  let compared = 0;
  for (let i = 0; i < 5; i++) {
    for (const t of [0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83]) {
      for (const [l, a] of [[undefined, undefined], [leaf, undefined], [undefined, annex], [leaf, annex]] as const) {
        const single = (t & 3) === 3 && i >= 3;
        if (single) {
          assert.throws(() => d.witnessV1(i, t, l, a), /SINGLE/);
          continue;
        }
        const want = tx.preimageWitnessV1(i, scripts, t, amounts, undefined, l, l ? 0xc0 : undefined, a);
        assert.equal(hex.encode(d.witnessV1(i, t, l, a)), hex.encode(want), `input ${i} type ${t} leaf ${!!l} annex ${!!a}`);
        compared++;
      }
    }
  }
  assert.ok(compared > 100);
});

void test('an input that does not exist is refused, never hashed', () => {
  const { tx, prevouts } = wideTx();
  const d = new TxDigests(tx, prevouts);
  assert.throws(() => d.witnessV0(5, new Uint8Array(), 1, 0n), /Invalid input/);
  assert.throws(() => d.witnessV1(-1, 0), /Invalid input/);
  assert.throws(() => new TxDigests(tx, prevouts.slice(1)).witnessV1(0, 0), /every input/);
});
