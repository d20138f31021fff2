import { test } from 'node:test';
import assert from 'node:assert/strict';
import { p2ms, p2wsh, SigHash, Transaction } from '@scure/btc-signer';
import { checkInput0Sighash, collectSighashFlags, isLooseDer } from '../../src/counterparty/sighash-flag.js';
import { fundingTx, makeWallet, signInput, walletInput, type TestWallet } from '../helpers/wallets.js';

/** A one-input transaction signed by `w` with `sighash`; returns input 0's scriptSig and witness. */
function signed(w: TestWallet, sighash: number): { scriptSig: Uint8Array; witness: Uint8Array[] } {
  const { txid, tx: prevTx } = fundingTx([{ script: w.script, amount: 10_000n }], w.address);
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput(walletInput(w, { txid, index: 0, amount: 10_000n, prevTx }));
  tx.addOutput({ script: w.script, amount: 9_000n });
  signInput(tx, 0, w, sighash);
  tx.finalizeIdx(0);
  const i = tx.getInput(0);
  return { scriptSig: i.finalScriptSig ?? new Uint8Array(), witness: i.finalScriptWitness ?? [] };
}

for (const family of ['p2pkh', 'p2wpkh', 'p2tr'] as const) {
  const w = makeWallet(family, 'sighash-flag');
  void test(`${family}: ALL and ALL|ANYONECANPAY pass, other flags drop the message`, () => {
    const all = signed(w, SigHash.ALL);
    assert.deepEqual(collectSighashFlags(all.scriptSig, all.witness), [0x01]);
    assert.equal(checkInput0Sighash(all.scriptSig, all.witness).ok, true);
    const acp = signed(w, SigHash.ALL_ANYONECANPAY);
    assert.equal(checkInput0Sighash(acp.scriptSig, acp.witness).ok, true);
    for (const bad of [SigHash.NONE, SigHash.SINGLE, SigHash.SINGLE_ANYONECANPAY, SigHash.NONE_ANYONECANPAY]) {
      const s = signed(w, bad);
      const r = checkInput0Sighash(s.scriptSig, s.witness);
      assert.equal(r.ok, false, `flag ${bad}`);
      assert.match((r as { reason: string }).reason, /invalid SIGHASH flag/);
    }
  });
}

void test('a 64-byte taproot signature (DEFAULT) counts as ALL', () => {
  const s = signed(makeWallet('p2tr', 'default'), SigHash.DEFAULT);
  assert.equal(s.witness.length, 1);
  assert.equal(s.witness[0]!.length, 64);
  assert.deepEqual(checkInput0Sighash(s.scriptSig, s.witness), { ok: true, flags: [0x01] });
});

void test('P2WSH multisig: the empty dummy is item 0, no flag can be read, the message is dropped', () => {
  const a = makeWallet('p2wpkh', 'ms-a');
  const b = makeWallet('p2wpkh', 'ms-b');
  const pay = p2wsh(p2ms(2, [a.publicKey, b.publicKey]));
  const { txid } = fundingTx([{ script: pay.script, amount: 10_000n }], 'ms');
  const tx = new Transaction();
  tx.addInput({ txid, index: 0, witnessUtxo: { script: pay.script, amount: 10_000n }, witnessScript: pay.witnessScript });
  tx.addOutput({ script: a.script, amount: 9_000n });
  tx.sign(a.privateKey);
  tx.sign(b.privateKey);
  tx.finalize();
  const w = tx.getInput(0).finalScriptWitness!;
  assert.equal(w[0]!.length, 0);
  assert.deepEqual(collectSighashFlags(new Uint8Array(), w), []);
  assert.match((checkInput0Sighash(new Uint8Array(), w) as { reason: string }).reason, /impossible to determine/);
});

void test('a taproot script path reads witness item 0 only', () => {
  const sig64 = new Uint8Array(64).fill(1);
  const sig65 = new Uint8Array([...sig64, 0x83]);
  const leaf = new Uint8Array([0x20, ...new Uint8Array(32), 0xac]);
  const control = new Uint8Array(33).fill(0xc0);
  // [market ALL, bidder SINGLE|ACP, leaf, control]: only item 0 counts.
  assert.deepEqual(collectSighashFlags(new Uint8Array(), [sig64, sig65, leaf, control]), [0x01]);
  assert.equal(checkInput0Sighash(new Uint8Array(), [sig65, sig64, leaf, control]).ok, false);
  // A 2-item witness is read as P2WPKH: a Schnorr signature there is no DER, so no flag.
  assert.deepEqual(collectSighashFlags(new Uint8Array(), [sig64, new Uint8Array([0x50, 1])]), []);
});

void test('loose DER layout check (Core is_valid_der)', () => {
  assert.ok(isLooseDer(new Uint8Array([0x30, 6, 2, 1, 1, 2, 1, 1])));
  assert.ok(!isLooseDer(new Uint8Array([0x30, 6, 2, 0, 2, 2, 1, 1])));
  assert.ok(!isLooseDer(new Uint8Array([0x30, 7, 2, 1, 1, 2, 1, 1])));
  assert.ok(!isLooseDer(new Uint8Array([0x31, 6, 2, 1, 1, 2, 1, 1])));
  assert.equal(collectSighashFlags(new Uint8Array([0x05, 1]), []), null, 'truncated scriptSig push');
});
