/** verifyInputSignature with real keys: every sighash type, SINGLE edge cases, LOW_S, tapscript leaves. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { p2tr, RawTx, Script, TaprootControlBlock, Transaction, TAPROOT_UNSPENDABLE_KEY } from '@scure/btc-signer';
import { taprootTweakPrivKey } from '@scure/btc-signer/utils.js';
import { verifyInputSignature, type Prevout } from '../../src/bitcoin/input-signature.js';
import { legacySighash, READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { networkParams } from '../../src/bitcoin/networks.js';
import { fundingTx, makeWallet, signInput, signTapLeaf, walletInput, type TestWallet } from '../helpers/wallets.js';

const AMOUNT = 100_000n;
const other = makeWallet('p2wpkh', 'other');

/** A tx spending one output of each given wallet, with `nOutputs` outputs. */
function spend(wallets: TestWallet[], nOutputs: number, label: string, version = 2) {
  const f = fundingTx(wallets.map((w) => ({ script: w.script, amount: AMOUNT })), label);
  const tx = new Transaction({ allowUnknownOutputs: true, version });
  wallets.forEach((w, i) => tx.addInput(walletInput(w, { txid: f.txid, index: i, amount: AMOUNT, prevTx: f.tx })));
  for (let i = 0; i < nOutputs; i++) tx.addOutput({ script: other.script, amount: 1000n + BigInt(i) });
  const prevouts: Prevout[] = wallets.map((w) => ({ script: w.script, amount: AMOUNT }));
  return { tx, prevouts };
}

const TYPES = [0x01, 0x02, 0x03, 0x81, 0x82, 0x83];

void test('every ECDSA and taproot sighash type signed by scure verifies and is reported', () => {
  for (const family of ['p2pkh', 'p2wpkh', 'p2tr'] as const) {
    const w = makeWallet(family, 'types');
    for (const t of [...TYPES, ...(family === 'p2tr' ? [0x00] : [])]) {
      const { tx, prevouts } = spend([w, w], 2, `${family}-${t}`);
      signInput(tx, 1, w, t);
      signInput(tx, 0, w, 0x01);
      tx.finalize();
      const raw = tx.extract();
      const r = verifyInputSignature(raw, 1, prevouts);
      assert.ok(r.ok, `${family} ${t}: ${JSON.stringify(r)}`);
      assert.deepEqual(r.sighashTypes, [t]);
      assert.equal(r.family, family === 'p2tr' ? 'p2tr-key' : family);
      // Any other expectation is reported with both values.
      const want = t === 0x83 ? 0x01 : 0x83;
      const bad = verifyInputSignature(raw, 1, prevouts, { allowedSighashes: [want] });
      assert.equal(bad.ok, false);
      assert.equal(!bad.ok && bad.error, `input 1: sighash 0x${t.toString(16).padStart(2, '0')}, expected 0x${want.toString(16).padStart(2, '0')}`);
    }
  }
});

void test('what each sighash commits to: changing another output or input breaks only ALL-style signatures', () => {
  const w = makeWallet('p2wpkh', 'commit');
  for (const [t, survivesOutput1Change, survivesInputAdd] of [
    [0x01, false, false], [0x03, true, false], [0x83, true, true], [0x81, false, true], [0x02, true, false], [0x82, true, true],
  ] as const) {
    const { tx, prevouts } = spend([w], 2, `commit-${t}`);
    signInput(tx, 0, w, t);
    tx.finalize();
    const signed = Transaction.fromRaw(tx.extract(), READ_TX_OPTS);
    assert.ok(verifyInputSignature(signed, 0, prevouts).ok);
    const changedOut = Transaction.fromRaw(signed.toBytes(true, true), READ_TX_OPTS);
    changedOut.updateOutput(1, { amount: 999n }, true);
    assert.equal(verifyInputSignature(changedOut, 0, prevouts).ok, survivesOutput1Change, `0x${t.toString(16)} output change`);
    const raw = RawTx.decode(signed.toBytes(true, true));
    raw.inputs.push({ txid: new Uint8Array(32).fill(0x11), index: 7, sequence: 0xffffffff, finalScriptSig: new Uint8Array() });
    raw.witnesses!.push([]);
    const added = RawTx.encode(raw);
    const pv2 = [...prevouts, { script: other.script, amount: 5n }];
    assert.equal(verifyInputSignature(added, 0, pv2).ok, survivesInputAdd, `0x${t.toString(16)} input add`);
  }
});

/** Replace input `idx`'s signature with one we make by hand over `msg`. */
function ecdsaSig(msg: Uint8Array, priv: Uint8Array, hashType: number, highS = false): Uint8Array {
  let sig = secp256k1.Signature.fromBytes(secp256k1.sign(msg, priv, { prehash: false, format: 'compact' }), 'compact');
  if (highS) sig = new secp256k1.Signature(sig.r, secp256k1.Point.CURVE().n - sig.s);
  return new Uint8Array([...sig.toBytes('der'), hashType]);
}

void test('SIGHASH_SINGLE without a matching output: legacy signs uint256(1), BIP-143 zero hashOutputs, taproot invalid', () => {
  const pkh = makeWallet('p2pkh', 'single');
  const wpkh = makeWallet('p2wpkh', 'single');
  const tr = makeWallet('p2tr', 'single');
  const { tx, prevouts } = spend([pkh, wpkh, tr], 0, 'single-bug');
  tx.addOutput({ script: other.script, amount: 1n }); // only output 0 exists; inputs 1 and 2 have none
  const t = Transaction.fromRaw(tx.toBytes(true, false), READ_TX_OPTS);
  // P2PKH at input 0 must be tested without a matching output too: move it to a 1-input view below.
  const msgV0 = t.preimageWitnessV0(1, new Uint8Array([0x76, 0xa9, 0x14, ...wpkh.script.subarray(2), 0x88, 0xac]), 0x03, AMOUNT);
  t.updateInput(1, { finalScriptWitness: [ecdsaSig(msgV0, wpkh.privateKey, 0x03), wpkh.publicKey] }, true);
  const r1 = verifyInputSignature(t, 1, prevouts);
  assert.ok(r1.ok, JSON.stringify(r1));
  // Taproot: no digest exists, so no signature can be valid.
  const msgTr = t.preimageWitnessV1(2, prevouts.map((p) => p.script), 0x01, prevouts.map((p) => p.amount));
  const key = taprootTweakPrivKey(tr.privateKey);
  t.updateInput(2, { finalScriptWitness: [new Uint8Array([...schnorr.sign(msgTr, key), 0x03])] }, true);
  const r2 = verifyInputSignature(t, 2, prevouts);
  assert.deepEqual(r2, { ok: false, input: 2, error: 'input 2: sighash SINGLE without a matching output', detail: 'sighash SINGLE without a matching output', scriptError: 'Invalid Schnorr signature hash type' });
  // Legacy: input index 1 (P2PKH) with one output: the digest is uint256(1) (consensus bug kept).
  const { tx: lt, prevouts: lp } = spend([wpkh, pkh], 0, 'single-legacy');
  lt.addOutput({ script: other.script, amount: 1n });
  const l = Transaction.fromRaw(lt.toBytes(true, false), READ_TX_OPTS);
  const one = legacySighash(l, 1, pkh.script, 0x03);
  assert.deepEqual(one, new Uint8Array([1, ...new Uint8Array(31)]));
  l.updateInput(1, { finalScriptSig: Script.encode([ecdsaSig(one, pkh.privateKey, 0x03), pkh.publicKey]) }, true);
  const r3 = verifyInputSignature(l, 1, lp);
  assert.ok(r3.ok, JSON.stringify(r3));
  assert.deepEqual(r3.sighashTypes, [0x03]);
});

void test('LOW_S is policy: high-S fails under standard rules and passes under consensus rules', () => {
  const w = makeWallet('p2wpkh', 'lows');
  const { tx, prevouts } = spend([w], 1, 'lows');
  const t = Transaction.fromRaw(tx.toBytes(true, false), READ_TX_OPTS);
  const msg = t.preimageWitnessV0(0, new Uint8Array([0x76, 0xa9, 0x14, ...w.script.subarray(2), 0x88, 0xac]), 0x01, AMOUNT);
  t.updateInput(0, { finalScriptWitness: [ecdsaSig(msg, w.privateKey, 0x01, true), w.publicKey] }, true);
  const std = verifyInputSignature(t, 0, prevouts);
  assert.deepEqual(std, {
    ok: false, input: 0, error: 'input 0: signature has high S (BIP-146 LOW_S)', detail: 'signature has high S (BIP-146 LOW_S)',
    scriptError: 'Non-canonical signature: S value is unnecessarily high',
  });
  assert.ok(verifyInputSignature(t, 0, prevouts, { rules: 'consensus' }).ok);
  // Undefined hash type 0x04: non-standard (STRICTENC), valid by consensus (it commits like ALL).
  const msg4 = t.preimageWitnessV0(0, new Uint8Array([0x76, 0xa9, 0x14, ...w.script.subarray(2), 0x88, 0xac]), 0x04, AMOUNT);
  t.updateInput(0, { finalScriptWitness: [ecdsaSig(msg4, w.privateKey, 0x04), w.publicKey] }, true);
  assert.match(String((verifyInputSignature(t, 0, prevouts) as { error: string }).error), /undefined sighash 0x04/);
  assert.ok(verifyInputSignature(t, 0, prevouts, { rules: 'consensus' }).ok);
  // Both at once: Core's CheckSignatureEncoding names LOW_S before the hash type.
  t.updateInput(0, { finalScriptWitness: [ecdsaSig(msg4, w.privateKey, 0x04, true), w.publicKey] }, true);
  const both = verifyInputSignature(t, 0, prevouts);
  assert.equal(!both.ok && both.scriptError, 'Non-canonical signature: S value is unnecessarily high');
});

void test('wrong key, wrong pubkey, malformed DER, wrong witness shape are reported', () => {
  const w = makeWallet('p2wpkh', 'bad');
  const { tx, prevouts } = spend([w], 1, 'bad');
  signInput(tx, 0, w, 1);
  tx.finalize();
  const good = Transaction.fromRaw(tx.extract(), READ_TX_OPTS);
  const [sig, pub] = good.getInput(0).finalScriptWitness as [Uint8Array, Uint8Array];
  const cases: [Uint8Array[], RegExp][] = [
    [[sig, other.publicKey], /pubkey does not match the P2WPKH program/],
    [[sig], /P2WPKH witness must have 2 items/],
    [[new Uint8Array([...sig.subarray(0, 4), 0x00, ...sig.subarray(4)]), pub], /not strict DER/],
    [[new Uint8Array(), pub], /empty signature/],
  ];
  for (const [witness, re] of cases) {
    const t = Transaction.fromRaw(good.toBytes(true, true), READ_TX_OPTS);
    t.updateInput(0, { finalScriptWitness: witness }, true);
    const r = verifyInputSignature(t, 0, prevouts);
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error : '', re);
  }
  // Right shape, another key's signature: the hash of the key matches only if we swap both.
  const t2 = Transaction.fromRaw(good.toBytes(true, true), READ_TX_OPTS);
  const msg = t2.preimageWitnessV0(0, new Uint8Array([0x76, 0xa9, 0x14, ...w.script.subarray(2), 0x88, 0xac]), 1, AMOUNT);
  t2.updateInput(0, { finalScriptWitness: [ecdsaSig(msg, other.privateKey, 1), pub] }, true);
  assert.match(String((verifyInputSignature(t2, 0, prevouts) as { error: string }).error), /ECDSA signature does not verify/);
  // Core's words for each (what the devnet's mempool names): under the standard flags and under
  // the mandatory ones alone, as Core's CheckInputScripts re-runs a failed script.
  const coreText = (t: Transaction, rules: 'standard' | 'consensus') => {
    const r = verifyInputSignature(t, 0, prevouts, { rules });
    return r.ok ? 'ok' : r.scriptError;
  };
  assert.deepEqual([coreText(t2, 'standard'), coreText(t2, 'consensus')], [
    'Signature must be zero for failed CHECK(MULTI)SIG operation',
    'Script evaluated without error but finished with a false/empty top stack element',
  ]);
  const shapes: [Uint8Array[], string][] = [
    [[sig, other.publicKey], 'Script failed an OP_EQUALVERIFY operation'],
    [[sig], 'Witness program hash mismatch'],
    [[new Uint8Array([...sig.subarray(0, 4), 0x00, ...sig.subarray(4)]), pub], 'Non-canonical DER signature'],
    [[new Uint8Array(), pub], 'Script evaluated without error but finished with a false/empty top stack element'],
  ];
  for (const [witness, text] of shapes) {
    const t = Transaction.fromRaw(good.toBytes(true, true), READ_TX_OPTS);
    t.updateInput(0, { finalScriptWitness: witness }, true);
    assert.deepEqual([coreText(t, 'standard'), coreText(t, 'consensus')], [text, text], `${witness.length} items`);
  }
  // A P2PKH prevout whose spend carries a witness is refused.
  const pkh = makeWallet('p2pkh', 'bad');
  assert.match(String((verifyInputSignature(good, 0, [{ script: pkh.script, amount: AMOUNT }]) as { error: string }).error), /P2PKH input carries a witness/);
});

/** The market's escrow: leaf A = <bidder> CHECKSIGVERIFY <market> CHECKSIG, leaf B = <144> CSV DROP <bidder> CHECKSIG. */
function escrow() {
  const bidder = makeWallet('p2tr', 'bidder');
  const market = makeWallet('p2tr', 'market');
  const leafA = Script.encode([bidder.xOnly, 'CHECKSIGVERIFY', market.xOnly, 'CHECKSIG']);
  const leafB = Script.encode([144, 'CHECKSEQUENCEVERIFY', 'DROP', bidder.xOnly, 'CHECKSIG']);
  const pay = p2tr(TAPROOT_UNSPENDABLE_KEY, [{ script: leafA }, { script: leafB }], networkParams('regtest'), true);
  const control = (leaf: Uint8Array) => {
    const entry = pay.tapLeafScript!.find(([, s]) => Buffer.from(s.subarray(0, -1)).equals(leaf))!;
    return TaprootControlBlock.encode(entry[0]);
  };
  return { bidder, market, leafA, leafB, script: pay.script, controlA: control(leafA), controlB: control(leafB) };
}

function escrowSpend(sequence: number, version = 2) {
  const e = escrow();
  const funding = fundingTx([{ script: e.script, amount: AMOUNT }], `escrow-${sequence}-${version}`);
  const tx = new Transaction({ version, allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true });
  tx.addInput({ txid: funding.txid, index: 0, sequence, witnessUtxo: { script: e.script, amount: AMOUNT } });
  tx.addOutput({ script: other.script, amount: 90_000n });
  tx.addOutput({ script: e.bidder.script, amount: 5_000n });
  return { e, tx, prevouts: [{ script: e.script, amount: AMOUNT }] };
}

void test('tapscript 2-of-2 leaf: market first in the witness, each signature checked against its key', () => {
  const { e, tx, prevouts } = escrowSpend(0xfffffffd);
  const sigBidder = signTapLeaf(tx, 0, e.bidder.privateKey, e.leafA, prevouts, 0x83);
  const sigMarket = signTapLeaf(tx, 0, e.market.privateKey, e.leafA, prevouts, 0x01);
  tx.updateInput(0, { finalScriptWitness: [sigMarket, sigBidder, e.leafA, e.controlA] }, true);
  const r = verifyInputSignature(tx, 0, prevouts);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.family, 'p2tr-script');
  assert.deepEqual(r.sighashTypes, [0x01, 0x83]);
  assert.deepEqual(r.pubkeys, [e.market.xOnly, e.bidder.xOnly]);
  const withWitness = (w: Uint8Array[]) => {
    const t = Transaction.fromRaw(tx.toBytes(true, true), READ_TX_OPTS);
    t.updateInput(0, { finalScriptWitness: w }, true);
    const res = verifyInputSignature(t, 0, prevouts);
    return res.ok ? 'ok' : res.error;
  };
  // The first key (the bidder's) pops the top of the stack, witness item 1, first, as Core runs it.
  assert.equal(withWitness([sigBidder, sigMarket, e.leafA, e.controlA]), 'input 0: signature 1 does not verify (script path)');
  assert.match(withWitness([sigMarket, e.leafA, e.controlA]), /signature 0 does not verify/);
  assert.match(withWitness([sigBidder, e.leafA, e.controlA]), /needs 2 signatures, witness has 1/);
  assert.match(withWitness([new Uint8Array(), sigMarket, sigBidder, e.leafA, e.controlA]), /needs 2 signatures, witness has 3/);
  assert.match(withWitness([sigMarket, sigBidder, e.leafA, e.controlB]), /control block does not commit/);
  const flipped = new Uint8Array(e.controlA);
  flipped[0] = flipped[0]! ^ 1;
  assert.match(withWitness([sigMarket, sigBidder, e.leafA, flipped]), /control block does not commit/);
  assert.match(withWitness([sigMarket, sigBidder, e.leafA, e.controlA.subarray(0, 40)]), /control block has invalid length/);
  // Core's words for the same shapes (Core runs the leaf: the bidder's key pops the top first).
  const coreText = (w: Uint8Array[]) => {
    const t = Transaction.fromRaw(tx.toBytes(true, true), READ_TX_OPTS);
    t.updateInput(0, { finalScriptWitness: w }, true);
    const res = verifyInputSignature(t, 0, prevouts);
    return res.ok ? 'ok' : res.scriptError;
  };
  const empty = new Uint8Array();
  assert.deepEqual([
    coreText([sigBidder, sigMarket, e.leafA, e.controlA]),
    coreText([sigBidder, e.leafA, e.controlA]),
    coreText([sigMarket, empty, e.leafA, e.controlA]),
    coreText([empty, sigBidder, e.leafA, e.controlA]),
    coreText([empty, sigMarket, sigBidder, e.leafA, e.controlA]),
    coreText([sigMarket, sigBidder, e.leafA, e.controlB]),
    coreText([sigMarket, sigBidder, e.leafA, e.controlA.subarray(0, 40)]),
  ], [
    'Invalid Schnorr signature',
    'Operation not valid with the current stack size',
    'Script failed an OP_CHECKSIGVERIFY operation',
    'Script evaluated without error but finished with a false/empty top stack element',
    'Stack size must be exactly one after execution',
    'Witness program hash mismatch',
    'Invalid Taproot control block size',
  ]);
  // A leaf the verifier does not understand is an error, not a pass.
  const leafX = Script.encode([e.bidder.xOnly, 'CHECKSIG', 'DROP']);
  assert.match(withWitness([sigMarket, leafX, e.controlA]), /control block does not commit/);
});

void test('tapscript refund leaf: BIP-112 CSV is enforced (version, sequence)', () => {
  for (const [seq, version, expect] of [
    [144, 2, 'ok'], [200, 2, 'ok'], [143, 2, /relative lock 144 not met by sequence 143/],
    [144, 1, /CSV needs transaction version/], [(0x80000000 | 144) >>> 0, 2, /disable flag/], [0x00400000 | 144, 2, /lock type/],
  ] as const) {
    const { e, tx, prevouts } = escrowSpend(seq, version);
    const sig = signTapLeaf(tx, 0, e.bidder.privateKey, e.leafB, prevouts);
    tx.updateInput(0, { finalScriptWitness: [sig, e.leafB, e.controlB] }, true);
    const r = verifyInputSignature(tx, 0, prevouts);
    if (expect === 'ok') {
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual(r.sighashTypes, [0x00]);
    } else {
      assert.match(!r.ok ? r.error : 'ok', expect);
      assert.equal(!r.ok && r.scriptError, 'Locktime requirement not satisfied');
    }
  }
});

void test('annex: committed by the signature (BIP-341 spend_type bit 0); valid by consensus, refused by relay policy', () => {
  const w = makeWallet('p2tr', 'annex');
  const { tx, prevouts } = spend([w], 1, 'annex');
  const t = Transaction.fromRaw(tx.toBytes(true, false), READ_TX_OPTS);
  const annex = new Uint8Array([0x50, 1, 2, 3]);
  const key = taprootTweakPrivKey(w.privateKey);
  const msg = t.preimageWitnessV1(0, prevouts.map((p) => p.script), 0, prevouts.map((p) => p.amount), undefined, undefined, undefined, annex);
  const sig = schnorr.sign(msg, key);
  const consensus = { rules: 'consensus' } as const;
  t.updateInput(0, { finalScriptWitness: [sig, annex] }, true);
  assert.ok(verifyInputSignature(t, 0, prevouts, consensus).ok);
  assert.match(String((verifyInputSignature(t, 0, prevouts) as { error: string }).error), /annex is non-standard/, 'a node would not relay it');
  t.updateInput(0, { finalScriptWitness: [sig] }, true);
  assert.match(String((verifyInputSignature(t, 0, prevouts) as { error: string }).error), /does not verify \(key path\)/);
  t.updateInput(0, { finalScriptWitness: [sig, new Uint8Array([0x50, 9])] }, true);
  assert.equal(verifyInputSignature(t, 0, prevouts, consensus).ok, false);
  // A signature made without annex, annex appended later: invalid.
  const plain = schnorr.sign(t.preimageWitnessV1(0, prevouts.map((p) => p.script), 0, prevouts.map((p) => p.amount)), key);
  t.updateInput(0, { finalScriptWitness: [plain] }, true);
  assert.ok(verifyInputSignature(t, 0, prevouts).ok);
  t.updateInput(0, { finalScriptWitness: [plain, annex] }, true);
  assert.equal(verifyInputSignature(t, 0, prevouts, consensus).ok, false);
});
