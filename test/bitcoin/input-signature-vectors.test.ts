/** BIP-341 keyPathSpending and BIP-143 P2WPKH vectors through verifyInputSignature. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { verifyAllInputSignatures, verifyInputSignature, type Prevout } from '../../src/bitcoin/input-signature.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { VECTORS_DIR } from '../helpers/fixtures.js';

const VECTORS = VECTORS_DIR;
const bip341 = JSON.parse(readFileSync(`${VECTORS}/bip341-wallet.json`, 'utf8')) as {
  keyPathSpending: {
    given: { rawUnsignedTx: string; utxosSpent: { scriptPubKey: string; amountSats: number }[] };
    inputSpending: { given: { txinIndex: number; hashType: number }; intermediary: { sigHash: string }; expected: { witness: string[] } }[];
    auxiliary: { fullySignedTx: string };
  }[];
};
const bip143 = JSON.parse(readFileSync(`${VECTORS}/bip143-p2wpkh.json`, 'utf8')) as {
  unsigned_tx: string; input_index: number; prevout_script: string; amount_sats: number; hash_type: number;
  public_key: string; script_code: string; sighash: string; signed_tx: string;
};

const ks = bip341.keyPathSpending[0]!;
const prevouts: Prevout[] = ks.given.utxosSpent.map((u) => ({ script: hex.decode(u.scriptPubKey), amount: BigInt(u.amountSats) }));
const signed = hex.decode(ks.auxiliary.fullySignedTx);

void test('BIP-341: scure sighash of every keyPathSpending input matches the vector (incl. 0x83)', () => {
  const tx = Transaction.fromRaw(hex.decode(ks.given.rawUnsignedTx), READ_TX_OPTS);
  assert.ok(ks.inputSpending.some((s) => s.given.hashType === 0x83));
  for (const s of ks.inputSpending) {
    const got = tx.preimageWitnessV1(s.given.txinIndex, prevouts.map((p) => p.script), s.given.hashType, prevouts.map((p) => p.amount));
    assert.equal(hex.encode(got), s.intermediary.sigHash, `input ${s.given.txinIndex}`);
  }
});

void test('BIP-341: every input of the fully signed tx verifies, with the vector hash types', () => {
  const all = verifyAllInputSignatures(signed, prevouts);
  assert.ok(all.ok, JSON.stringify(all));
  assert.equal(all.inputs.length, 9);
  for (const s of ks.inputSpending) {
    const r: { family: string; sighashTypes: number[] } = all.inputs[s.given.txinIndex]!;
    assert.equal(r.family, 'p2tr-key');
    assert.deepEqual(r.sighashTypes, [s.given.hashType]);
  }
  assert.equal(all.inputs[2]!.family, 'p2pkh');
  assert.equal(all.inputs[5]!.family, 'p2wpkh');
});

void test('BIP-341: allowedSighashes reports the mismatch in the documented form', () => {
  // Input 0 is signed SINGLE (0x03).
  const r = verifyInputSignature(signed, 0, prevouts, { allowedSighashes: [0x83] });
  assert.deepEqual(r, { ok: false, input: 0, error: 'input 0: sighash 0x03, expected 0x83', detail: 'sighash 0x03, expected 0x83' });
  const ok = verifyInputSignature(signed, 1, prevouts, { allowedSighashes: [0x83] });
  assert.ok(ok.ok);
});

void test('BIP-341: a changed amount of another input invalidates a non-ANYONECANPAY signature only', () => {
  const changed = prevouts.map((p, i) => (i === 3 ? { ...p, amount: p.amount + 1n } : p));
  // Input 1 is 0x83 (ANYONECANPAY: commits to its own amount only), input 0 is SINGLE (all amounts).
  assert.ok(verifyInputSignature(signed, 1, changed).ok);
  const r = verifyInputSignature(signed, 0, changed);
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.error : '', /^input 0: schnorr signature does not verify/);
});

void test('BIP-341: wrong number of prevouts, missing input and broken tx are values, not throws', () => {
  assert.match(String((verifyInputSignature(signed, 0, prevouts.slice(1)) as { error: string }).error), /expected 9 prevouts/);
  assert.match(String((verifyInputSignature(signed, 9, prevouts) as { error: string }).error), /no such input/);
  assert.match(String((verifyInputSignature(new Uint8Array([1, 2, 3]), 0, prevouts) as { error: string }).error), /does not parse/);
});

void test('BIP-341: explicit 0x00 hash type in a 65-byte signature is invalid', () => {
  const tx = Transaction.fromRaw(signed, READ_TX_OPTS);
  const w = tx.getInput(4).finalScriptWitness!; // input 4 is signed DEFAULT (64 bytes)
  assert.equal(w[0]!.length, 64);
  tx.updateInput(4, { finalScriptWitness: [new Uint8Array([...w[0]!, 0x00])] }, true);
  const r = verifyInputSignature(tx, 4, prevouts);
  assert.deepEqual(r, { ok: false, input: 4, error: 'input 4: invalid taproot sighash 0x00', detail: 'invalid taproot sighash 0x00', scriptError: 'Invalid Schnorr signature hash type' });
  tx.updateInput(4, { finalScriptWitness: [new Uint8Array([...w[0]!, 0x01])] }, true);
  assert.equal(verifyInputSignature(tx, 4, prevouts).ok, false, 'explicit ALL commits differently from DEFAULT');
});

void test('BIP-143 native P2WPKH: sighash, signature and full signed tx', () => {
  const tx = Transaction.fromRaw(hex.decode(bip143.unsigned_tx), READ_TX_OPTS);
  const idx = bip143.input_index;
  const code = hex.decode(bip143.script_code).subarray(1); // drop the length prefix
  const got = tx.preimageWitnessV0(idx, code, bip143.hash_type, BigInt(bip143.amount_sats));
  assert.equal(hex.encode(got), bip143.sighash);
  // Input 0 is a P2PK spend this module does not support; only its prevout slot is needed.
  const pv: Prevout[] = [
    { script: hex.decode('2103c9f4836b9a4f77fc0d81f7bcb01b7f1b35916864b9476c241ce9fc198bd25432ac'), amount: 625000000n },
    { script: hex.decode(bip143.prevout_script), amount: BigInt(bip143.amount_sats) },
  ];
  const r = verifyInputSignature(hex.decode(bip143.signed_tx), idx, pv);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.family, 'p2wpkh');
  assert.deepEqual(r.sighashTypes, [1]);
  assert.equal(hex.encode(r.pubkeys[0]!), bip143.public_key);
  // The amount is committed (BIP-143's fix for fee lying): a wrong amount fails.
  const wrong = [pv[0]!, { ...pv[1]!, amount: BigInt(bip143.amount_sats) - 1n }];
  assert.equal(verifyInputSignature(hex.decode(bip143.signed_tx), idx, wrong).ok, false);
  const p2pk = verifyInputSignature(hex.decode(bip143.signed_tx), 0, pv);
  assert.match(!p2pk.ok ? p2pk.error : '', /unsupported prevout script/);
});
