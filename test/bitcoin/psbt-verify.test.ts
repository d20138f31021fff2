/** verifyPsbt, extractFinalTransaction and compareToTemplate with real keys and PSBTs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hex, base64 } from '@scure/base';
import { p2tr, RawTx, Script, SigHash, TaprootControlBlock, Transaction, TAPROOT_UNSPENDABLE_KEY } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { RawPSBTV0 } from '@scure/btc-signer/psbt.js';
import { PsbtView } from '../../src/bitcoin/psbt-view.js';
import { compareToTemplate, extractFinalTransaction, extractWithFinals, finalFields, finalizeAndExtract, verifyPsbt, type FinalFields, type PsbtInputExpectation } from '../../src/bitcoin/psbt-verify.js';
import { verifyAllInputSignatures } from '../../src/bitcoin/input-signature.js';
import { networkParams } from '../../src/bitcoin/networks.js';
import { fundingTx, makeWallet, signInput, signTapLeaf, walletInput, type TestWallet } from '../helpers/wallets.js';

const seller = makeWallet('p2wpkh', 'seller');
const sellerTr = makeWallet('p2tr', 'seller');
const buyer = makeWallet('p2tr', 'buyer');
const buyerWpkh = makeWallet('p2wpkh', 'buyer');
const source = makeWallet('p2pkh', 'source');
const market = makeWallet('p2wpkh', 'market-fee');
const by = (w: TestWallet) => ({ address: w.address, network: 'regtest' as const });

/** Seller half: asset UTXO in 0, price out 0. */
function listing(w: TestWallet, price = 50_000n) {
  const f = fundingTx([{ script: w.script, amount: 330n }], `asset-${w.address}`);
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput(walletInput(w, { txid: f.txid, index: 0, amount: 330n }));
  tx.addOutput({ script: w.script, amount: price });
  return tx;
}

/** Checkout: buyer in 0 (ALL/DEFAULT), listing pair at 1, buyer change + fee outputs. */
function checkout(b: TestWallet, s: TestWallet) {
  const asset = fundingTx([{ script: s.script, amount: 330n }], `asset-${s.address}`);
  const pay = fundingTx([{ script: b.script, amount: 200_000n }], `pay-${b.address}`);
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput(walletInput(b, { txid: pay.txid, index: 0, amount: 200_000n }));
  tx.addInput(walletInput(s, { txid: asset.txid, index: 0, amount: 330n }));
  tx.addOutput({ script: b.script, amount: 330n });
  tx.addOutput({ script: s.script, amount: 50_000n });
  tx.addOutput({ script: new Uint8Array([0x6a, 0x04, 1, 2, 3, 4]), amount: 0n });
  tx.addOutput({ script: market.script, amount: 1_000n });
  tx.addOutput({ script: b.script, amount: 148_000n });
  return tx;
}

void test('listing PSBT: SINGLE|ANYONECANPAY by the seller passes, ALL is reported, as hex, base64 or bytes', () => {
  for (const w of [seller, sellerTr]) {
    const tx = listing(w);
    signInput(tx, 0, w, SigHash.SINGLE_ANYONECANPAY);
    const expect: PsbtInputExpectation[] = [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer: by(w) }];
    const psbt = tx.toPSBT();
    for (const form of [psbt, hex.encode(psbt), base64.encode(psbt)]) {
      const r = verifyPsbt(form, expect);
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual(r.inputs[0]!.sighashTypes, [0x83]);
      assert.equal(r.inputs[0]!.finalized, false);
    }
    const all = listing(w);
    signInput(all, 0, w, w.family === 'p2tr' ? 0 : 1);
    const r = verifyPsbt(all.toPSBT(), expect);
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.error, `PSBT: input 0 sighash 0x0${w.family === 'p2tr' ? 0 : 1}, expected 0x83`);
  }
});

void test('partial and finalized fields give the same verdict', () => {
  const tx = checkout(buyer, seller);
  signInput(tx, 0, buyer, 0);
  signInput(tx, 1, seller, SigHash.SINGLE_ANYONECANPAY);
  const expect: PsbtInputExpectation[] = [
    { index: 0, sighash: 'DEFAULT', signer: by(buyer) },
    { index: 1, sighash: 'SINGLE|ANYONECANPAY', signer: by(seller) },
  ];
  const partial = verifyPsbt(tx.toPSBT(), expect);
  assert.ok(partial.ok, JSON.stringify(partial));
  assert.deepEqual(partial.inputs.map((i) => i.finalized), [false, false]);
  tx.finalize();
  const final = verifyPsbt(tx.toPSBT(), expect);
  assert.ok(final.ok, JSON.stringify(final));
  assert.deepEqual(final.inputs.map((i) => [i.finalized, i.family, i.sighashTypes]), [[true, 'p2tr-key', [0]], [true, 'p2wpkh', [0x83]]]);
});

void test('DEFAULT / ALL / DEFAULT_OR_ALL for taproot and ECDSA buyers', () => {
  const cases: [TestWallet, number, PsbtInputExpectation['sighash'], boolean][] = [
    [buyer, 0x00, 'DEFAULT', true], [buyer, 0x01, 'DEFAULT', false], [buyer, 0x00, 'ALL', false], [buyer, 0x01, 'ALL', true],
    [buyer, 0x00, 'DEFAULT_OR_ALL', true], [buyer, 0x01, 'DEFAULT_OR_ALL', true], [buyer, 0x81, 'DEFAULT_OR_ALL', false],
    [buyerWpkh, 0x01, 'DEFAULT', true], [buyerWpkh, 0x01, 'ALL', true], [buyerWpkh, 0x01, 'DEFAULT_OR_ALL', true],
    [buyerWpkh, 0x81, 'ALL', false], [buyerWpkh, 0x03, 'DEFAULT', false],
  ];
  for (const [w, t, expectation, ok] of cases) {
    const tx = checkout(w, seller);
    signInput(tx, 0, w, t);
    const r = verifyPsbt(tx.toPSBT(), [{ index: 0, sighash: expectation, signer: by(w) }]);
    assert.equal(r.ok, ok, `${w.family} 0x${t.toString(16)} ${expectation}: ${JSON.stringify(r)}`);
    if (!r.ok) assert.match(r.error, /^PSBT: input 0 sighash 0x[0-9a-f]{2}, expected 0x/);
  }
});

void test('wrong key: another address, another pubkey, or a foreign signature', () => {
  const tx = listing(seller);
  signInput(tx, 0, seller, SigHash.SINGLE_ANYONECANPAY);
  const other = makeWallet('p2wpkh', 'not-seller');
  const r1 = verifyPsbt(tx.toPSBT(), [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer: by(other) }]);
  assert.equal(!r1.ok && r1.error, `PSBT: input 0 spends an output not paid to ${other.address}`);
  const r2 = verifyPsbt(tx.toPSBT(), [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer: { pubkey: other.publicKey } }]);
  assert.equal(!r2.ok && r2.error, `PSBT: input 0 not signed by ${hex.encode(other.publicKey)}`);
  assert.ok(verifyPsbt(tx.toPSBT(), [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer: { pubkey: seller.publicKey } }]).ok);
  // A signature made by another key, put in the seller's input with the seller's pubkey.
  const forged = listing(seller);
  const sigOther = (() => {
    const t = listing(other);
    signInput(t, 0, other, SigHash.SINGLE_ANYONECANPAY);
    return t.getInput(0).partialSig![0]![1];
  })();
  forged.updateInput(0, { partialSig: [[seller.publicKey, sigOther]] }, true);
  const r3 = verifyPsbt(forged.toPSBT(), [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer: by(seller) }]);
  assert.equal(!r3.ok && r3.error, 'PSBT: input 0 ECDSA signature does not verify');
  // Taproot internal key (BIP-86) is accepted as the signer pubkey for a key-path signature.
  const trTx = listing(sellerTr);
  signInput(trTx, 0, sellerTr, SigHash.SINGLE_ANYONECANPAY);
  assert.ok(verifyPsbt(trTx.toPSBT(), [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer: { pubkey: sellerTr.xOnly } }]).ok);
  assert.ok(verifyPsbt(trTx.toPSBT(), [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer: { pubkey: sellerTr.publicKey } }]).ok);
  assert.equal(verifyPsbt(trTx.toPSBT(), [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer: { pubkey: buyer.xOnly } }]).ok, false);
});

void test('an output changed after signing invalidates ALL but not the SINGLE|ANYONECANPAY pair', () => {
  const signed = checkout(buyerWpkh, seller);
  signInput(signed, 0, buyerWpkh, 1);
  signInput(signed, 1, seller, SigHash.SINGLE_ANYONECANPAY);
  const changed = checkout(buyerWpkh, seller);
  const raw = changed.toPSBT(); // rebuild with a different fee output, then graft the signatures
  const tampered = Transaction.fromPSBT(raw, { allowUnknownOutputs: true });
  tampered.updateOutput(3, { amount: 5_000n });
  tampered.updateInput(0, { partialSig: signed.getInput(0).partialSig }, true);
  tampered.updateInput(1, { partialSig: signed.getInput(1).partialSig }, true);
  const expect: PsbtInputExpectation[] = [
    { index: 0, sighash: 'ALL', signer: by(buyerWpkh) }, { index: 1, sighash: 'SINGLE|ANYONECANPAY', signer: by(seller) },
  ];
  const r = verifyPsbt(tampered.toPSBT(), expect);
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error, 'PSBT: input 0 ECDSA signature does not verify');
  assert.deepEqual(r.inputs.map((i) => i.ok), [false, true]);
  // The seller's price output itself is covered by its SINGLE signature.
  const price = Transaction.fromPSBT(raw, { allowUnknownOutputs: true });
  price.updateOutput(1, { amount: 40_000n });
  price.updateInput(1, { partialSig: signed.getInput(1).partialSig }, true);
  assert.equal(verifyPsbt(price.toPSBT(), [expect[1]!]).ok, false);
  assert.deepEqual(compareToTemplate(tampered.toPSBT(), signed.toPSBT()), { ok: false, error: 'PSBT: output 3 amount 5000, template 1000' });
});

void test('P2PKH attach source: nonWitnessUtxo must match the txid', () => {
  const f = fundingTx([{ script: source.script, amount: 20_000n }], 'attach');
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput(walletInput(source, { txid: f.txid, index: 0, amount: 20_000n, prevTx: f.tx }));
  tx.addOutput({ script: seller.script, amount: 330n });
  tx.addOutput({ script: new Uint8Array([0x6a, 0x02, 0xbe, 0xef]), amount: 0n });
  signInput(tx, 0, source, 1);
  const expect: PsbtInputExpectation[] = [{ index: 0, sighash: 'ALL', signer: by(source) }];
  const r = verifyPsbt(tx.toPSBT(), expect);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.inputs[0]!.family, 'p2pkh');
  tx.finalize();
  assert.ok(verifyPsbt(tx.toPSBT(), expect).ok);
  // A nonWitnessUtxo that is not the spent transaction is refused (scure refuses to build one,
  // so the PSBT is edited at the key-value level).
  const other = fundingTx([{ script: source.script, amount: 20_000n }], 'attach-other');
  const unsigned = new Transaction({ allowUnknownOutputs: true });
  unsigned.addInput(walletInput(source, { txid: f.txid, index: 0, amount: 20_000n, prevTx: f.tx }));
  unsigned.addOutput({ script: seller.script, amount: 330n });
  signInput(unsigned, 0, source, 1);
  const kv = RawPSBTV0.decode(unsigned.toPSBT());
  (kv.inputs[0] as Record<string, unknown>).nonWitnessUtxo = RawTx.decode(other.tx);
  const swapped = RawPSBTV0.encode(kv);
  const r2 = verifyPsbt(swapped, expect);
  // scure's parser already refuses it; psbtPrevout checks again for PSBTs built in memory.
  assert.match(!r2.ok ? r2.error : 'ok', /^PSBT: .*nonWitnessUtxo.*(wrong txid|does not match)/);
});

void test('taproot digest needs every prevout unless ANYONECANPAY', () => {
  const f = fundingTx([{ script: buyer.script, amount: 10_000n }], 'missing');
  for (const [t, ok] of [[0x00, false], [0x83, true]] as const) {
    const tx = new Transaction({ allowUnknownOutputs: true });
    tx.addInput(walletInput(buyer, { txid: f.txid, index: 0, amount: 10_000n }));
    tx.addInput({ txid: '22'.repeat(32), index: 1 });
    tx.addOutput({ script: buyer.script, amount: 9_000n });
    const sig = (() => {
      const full = new Transaction({ allowUnknownOutputs: true });
      full.addInput(walletInput(buyer, { txid: f.txid, index: 0, amount: 10_000n }));
      full.addInput({ txid: '22'.repeat(32), index: 1, witnessUtxo: { script: seller.script, amount: 777n } });
      full.addOutput({ script: buyer.script, amount: 9_000n });
      signInput(full, 0, buyer, t);
      return full.getInput(0).tapKeySig!;
    })();
    tx.updateInput(0, { tapKeySig: sig }, true);
    const r = verifyPsbt(tx.toPSBT(), [{ index: 0, sighash: t === 0 ? 'DEFAULT' : 'SINGLE|ANYONECANPAY', signer: by(buyer) }]);
    assert.equal(r.ok, ok, JSON.stringify(r));
    if (!r.ok) assert.match(r.error, /prevout of input 1 unknown/);
  }
});

void test('escrow pre-signature in tapScriptSig is checked against its leaf', () => {
  const bidder = makeWallet('p2tr', 'bidder');
  const mkt = makeWallet('p2tr', 'market');
  const leaf = Script.encode([bidder.xOnly, 'CHECKSIGVERIFY', mkt.xOnly, 'CHECKSIG']);
  const pay = p2tr(TAPROOT_UNSPENDABLE_KEY, { script: leaf }, networkParams('regtest'), true);
  const f = fundingTx([{ script: pay.script, amount: 60_000n }], 'escrow');
  const tx = new Transaction({ allowUnknownOutputs: true, allowUnknownInputs: true, version: 3 });
  tx.addInput({ txid: f.txid, index: 0, witnessUtxo: { script: pay.script, amount: 60_000n }, tapLeafScript: pay.tapLeafScript });
  tx.addOutput({ script: bidder.script, amount: 330n });
  const prevouts = [{ script: pay.script, amount: 60_000n }];
  const sig = signTapLeaf(tx, 0, bidder.privateKey, leaf, prevouts, 0x83);
  tx.updateInput(0, { tapScriptSig: [[{ pubKey: bidder.xOnly, leafHash: tapLeafHash(leaf) }, sig]] }, true);
  const expect = (pubkey: Uint8Array, sighash: PsbtInputExpectation['sighash'] = 'SINGLE|ANYONECANPAY') =>
    verifyPsbt(tx.toPSBT(), [{ index: 0, sighash, signer: { pubkey } }]);
  const ok = expect(bidder.xOnly);
  assert.ok(ok.ok, JSON.stringify(ok));
  assert.equal(ok.inputs[0]!.family, 'p2tr-script');
  assert.match((expect(mkt.xOnly) as { error: string }).error, /no script-path signature by/);
  assert.match((expect(bidder.xOnly, 'ALL') as { error: string }).error, /sighash 0x83, expected 0x01/);
  // Market co-signs; scure finalizes the 2-of-2 leaf; the final witness verifies as a whole.
  const msig = signTapLeaf(tx, 0, mkt.privateKey, leaf, prevouts, 0x01);
  const control = TaprootControlBlock.encode(pay.tapLeafScript![0]![0]);
  tx.updateInput(0, { finalScriptWitness: [msig, sig, leaf, control] }, true);
  const all = verifyAllInputSignatures(tx.toBytes(true, true), prevouts);
  assert.ok(all.ok, JSON.stringify(all));
  assert.deepEqual(all.inputs[0]!.sighashTypes, [0x01, 0x83]);
  const fin = verifyPsbt(tx.toPSBT(), [{ index: 0, sighash: 'ALL', signer: { pubkey: mkt.xOnly } }]);
  assert.match(!fin.ok ? fin.error : '', /sighash 0x83, expected 0x01/); // the bidder's 0x83 is in the same input
});

void test('extractFinalTransaction: names the unsigned input; extracts a verifiable transaction', () => {
  const tx = checkout(buyer, seller);
  signInput(tx, 0, buyer, 0);
  assert.deepEqual(extractFinalTransaction(tx.toPSBT()), { ok: false, error: 'PSBT: input 1 is not signed' });
  signInput(tx, 1, seller, SigHash.SINGLE_ANYONECANPAY);
  const psbt = tx.toPSBT();
  const r = extractFinalTransaction(psbt);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.txid, Transaction.fromRaw(r.tx, { allowUnknownOutputs: true }).id);
  const v = verifyAllInputSignatures(r.tx, [{ script: buyer.script, amount: 200_000n }, { script: seller.script, amount: 330n }]);
  assert.ok(v.ok, JSON.stringify(v));
  assert.ok(r.vsize > 150 && r.vsize < 300, String(r.vsize));
  // The caller's Transaction object is not finalized by extraction.
  assert.equal(tx.isFinal, false);
  assert.ok(extractFinalTransaction(tx).ok);
  assert.equal(tx.isFinal, false);
});

void test('final fields standing in for an input: verified as if merged, extracted byte for byte as scure extracts the merged PSBT', () => {
  for (const [b, w] of [[buyer, seller], [buyerWpkh, sellerTr]] as const) {
    const tx = checkout(b, w);
    signInput(tx, 0, b, b.family === 'p2tr' ? 0 : 1);
    signInput(tx, 1, w, SigHash.SINGLE_ANYONECANPAY);
    const signed = Transaction.fromPSBT(tx.toPSBT(), { allowUnknownOutputs: true });
    const sellerFinal = finalFields(signed.getInput(1), w.script)!;
    // The template holds the buyer's final fields; the seller's stand beside it, not merged.
    const template = Transaction.fromPSBT(tx.toPSBT(), { allowUnknownOutputs: true });
    template.updateInput(0, finalFields(template.getInput(0), b.script)!, true);
    const bare = Transaction.fromPSBT(template.toPSBT(), { allowUnknownOutputs: true });
    // Drop the seller's partial signature from the template: only the stand-in carries it.
    const unsignedSeller = checkout(b, w);
    unsignedSeller.updateInput(0, finalFields(template.getInput(0), b.script)!, true);
    const finals = new Map<number, FinalFields>([[1, sellerFinal]]);
    const expect: PsbtInputExpectation[] = [{ index: 1, sighash: 'SINGLE|ANYONECANPAY', signer: by(w) }];
    assert.equal(verifyPsbt(unsignedSeller, expect).ok, false, 'unsigned without the stand-in');
    assert.ok(verifyPsbt(unsignedSeller, expect, { finals }).ok);
    const got = extractWithFinals(unsignedSeller, finals);
    bare.updateInput(1, sellerFinal, true);
    const want = finalizeAndExtract(bare);
    assert.ok(got.ok && want.ok, JSON.stringify(got));
    assert.equal(got.hex, want.hex);
    assert.equal(got.txid, want.txid);
    assert.deepEqual(got.witnesses[0], (finalFields(template.getInput(0), b.script) as { finalScriptWitness: Uint8Array[] }).finalScriptWitness);
    assert.equal(unsignedSeller.getInput(1).finalScriptWitness, undefined, 'the PSBT is left as it was');
    // Another input's witness in its place does not verify; an empty one is unsigned; a missing input is named.
    const wrong = new Map<number, FinalFields>([[1, finalFields(template.getInput(0), b.script)!]]);
    assert.equal(verifyPsbt(unsignedSeller, expect, { finals: wrong }).ok, false);
    const empty = verifyPsbt(unsignedSeller, expect, { finals: new Map([[1, { finalScriptWitness: [] }]]) });
    assert.match(!empty.ok ? empty.error : '', /input 1 is not signed/);
    assert.deepEqual(extractWithFinals(unsignedSeller, new Map()), { ok: false, error: 'PSBT: input 1 is not signed' });
    // Through one view of the transaction (read once): the same verdicts, the same bytes and txid.
    const view = new PsbtView(unsignedSeller);
    assert.ok(verifyPsbt(unsignedSeller, expect, { finals, view }).ok);
    assert.equal(verifyPsbt(unsignedSeller, expect, { finals: wrong, view }).ok, false);
    assert.deepEqual(extractWithFinals(unsignedSeller, finals, view), got);
    assert.deepEqual(extractWithFinals(unsignedSeller, new Map(), view), { ok: false, error: 'PSBT: input 1 is not signed' });
    // A scriptSig among the finals is in the txid (the view's unsigned txid is not taken then).
    const withSig = new Map<number, FinalFields>([[1, { finalScriptSig: new Uint8Array([0x51]) }]]);
    const sigGot = extractWithFinals(unsignedSeller, withSig, view);
    assert.ok(sigGot.ok);
    assert.deepEqual(sigGot, extractWithFinals(unsignedSeller, withSig));
    assert.notEqual(sigGot.txid, got.ok && got.txid);
  }
});

void test("finalFields builds scure's final witness from partial signatures (P2TR, P2WPKH, P2PKH), keeps final ones, and gives nothing unsigned", () => {
  for (const [b, s] of [[buyer, seller], [buyerWpkh, sellerTr]] as const) {
    const tx = checkout(b, s);
    assert.equal(finalFields(tx.getInput(0), b.script), undefined);
    signInput(tx, 0, b, b.family === 'p2tr' ? 0 : 1);
    signInput(tx, 1, s, SigHash.SINGLE_ANYONECANPAY);
    // Set as final fields, the built witnesses extract to scure's own finalization, byte for byte.
    const mine = Transaction.fromPSBT(tx.toPSBT(), { allowUnknownOutputs: true });
    for (const [i, w] of [[0, b], [1, s]] as const) mine.updateInput(i, finalFields(mine.getInput(i), w.script)!, true);
    const theirs = extractFinalTransaction(tx);
    const built = finalizeAndExtract(mine);
    assert.ok(theirs.ok && built.ok);
    assert.equal(built.hex, theirs.hex);
    assert.equal(built.txid, theirs.txid);
    assert.equal(built.vsize, theirs.vsize);
    // A finalized input gives its own fields back.
    tx.finalize();
    assert.deepEqual(finalFields(tx.getInput(1), s.script), { finalScriptWitness: tx.getInput(1).finalScriptWitness });
  }
  const fund = fundingTx([{ script: source.script, amount: 20_000n }], 'final-p2pkh');
  const p2pkh = new Transaction({ allowUnknownOutputs: true });
  p2pkh.addInput(walletInput(source, { txid: fund.txid, index: 0, amount: 20_000n, prevTx: fund.tx }));
  p2pkh.addOutput({ script: seller.script, amount: 19_000n });
  signInput(p2pkh, 0, source, 1);
  const f = finalFields(p2pkh.getInput(0), source.script);
  assert.ok(f && 'finalScriptSig' in f);
  p2pkh.finalize();
  assert.deepEqual(f.finalScriptSig, p2pkh.getInput(0).finalScriptSig);
});

/** scure keeps version and locktime in its private PSBT global map. */
const globalOf = (t: Transaction) => (t as unknown as { global: { txVersion?: number; fallbackLocktime?: number } }).global;

void test('compareToTemplate reports the first difference', () => {
  const template = checkout(buyerWpkh, seller);
  const templatePsbt = template.toPSBT();
  const signed = Transaction.fromPSBT(templatePsbt, { allowUnknownOutputs: true });
  signInput(signed, 0, buyerWpkh, 1);
  assert.deepEqual(compareToTemplate(signed.toPSBT(), templatePsbt), { ok: true });
  assert.deepEqual(compareToTemplate(signed.toPSBT(), hex.encode(template.toBytes(true, false))), { ok: true });
  const variants: [string, (t: Transaction) => void][] = [
    ['PSBT: version 3, template 2', (t) => { globalOf(t).txVersion = 3; }],
    ['PSBT: locktime 5, template 0', (t) => { globalOf(t).fallbackLocktime = 5; }],
    ['PSBT: input 1 sequence 4294967293, template 4294967295', (t) => t.updateInput(1, { sequence: 0xfffffffd }, true)],
    ['PSBT: output 4 amount 1, template 148000', (t) => t.updateOutput(4, { amount: 1n }, true)],
    ['PSBT: output count 6, template 5', (t) => t.addOutput({ script: seller.script, amount: 1n })],
    ['PSBT: input count 3, template 2', (t) => t.addInput({ txid: '33'.repeat(32), index: 0 })],
  ];
  for (const [want, mutate] of variants) {
    const t = Transaction.fromPSBT(templatePsbt, { allowUnknownOutputs: true, allowUnknownVersion: true });
    mutate(t);
    assert.deepEqual(compareToTemplate(t.toPSBT(), templatePsbt), { ok: false, error: want });
  }
  const swapped = Transaction.fromPSBT(templatePsbt, { allowUnknownOutputs: true });
  swapped.updateOutput(0, { script: market.script }, true);
  assert.match((compareToTemplate(swapped.toPSBT(), templatePsbt) as { error: string }).error, /^PSBT: output 0 script /);
});

void test('garbage, missing input and unsigned input are values', () => {
  assert.deepEqual(verifyPsbt('zz', []), { ok: false, error: 'PSBT: not hex or base64', inputs: [] });
  assert.deepEqual(verifyPsbt('00112233445566', []), { ok: false, error: 'PSBT: missing magic bytes', inputs: [] });
  const tx = listing(seller);
  assert.equal((verifyPsbt(tx.toPSBT(), [{ index: 3, sighash: 'ALL', signer: by(seller) }]) as { error: string }).error, 'PSBT: input 3 does not exist');
  assert.equal((verifyPsbt(tx.toPSBT(), [{ index: 0, sighash: 'ALL', signer: by(seller) }]) as { error: string }).error, 'PSBT: input 0 is not signed');
});
