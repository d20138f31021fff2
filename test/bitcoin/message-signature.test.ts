/** verifyMessage with real keys: bip322-js cross-checks, BIP-137 declarations, P2PKH proofs, full variant. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base64 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p2pkh, p2wpkh, RawTx, Script, Transaction } from '@scure/btc-signer';
import { buildToSign, buildToSpend } from '../../src/bitcoin/bip322.js';
import { scriptToAddress } from '../../src/bitcoin/address.js';
import { bitcoinMessageHash } from '../../src/bitcoin/bip137.js';
import { verifyMessage, type VerifyMessageInput } from '../../src/bitcoin/message-signature.js';
import { networkParams } from '../../src/bitcoin/networks.js';
import { legacySighash, READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { makeWallet, signInput, signMessageBip322, type TestWallet } from '../helpers/wallets.js';

const MSG = 'Sign in to the market\nnonce: 4f1c\nissued_at: 2026-01-01T00:00:00Z';
const verify = (w: { address: string }, signatureBase64: string, extra: Partial<VerifyMessageInput> = {}) =>
  verifyMessage({ address: w.address, message: MSG, signatureBase64, network: 'regtest', ...extra });

void test('bip322-js signatures verify for P2WPKH and P2TR, and only for the signed message and address', () => {
  for (const family of ['p2wpkh', 'p2tr'] as const) {
    for (const label of ['x', 'y']) {
      const w = makeWallet(family, label);
      const sig = signMessageBip322(w, MSG);
      assert.deepEqual(verify(w, sig), { ok: true, method: 'BIP-322', format: 'simple' });
      assert.deepEqual(verify(w, 'smp' + sig), { ok: true, method: 'BIP-322', format: 'simple' });
      assert.equal((verify(w, sig, { message: MSG + ' ' }) as { reason: string }).reason, 'invalid_signature');
      assert.equal((verify(makeWallet(family, 'z'), sig) as { reason: string }).reason, 'invalid_signature');
      // Declaring BIP-137 for a BIP-322 signature is a malformed request.
      assert.equal(verify(w, sig, { method: 'BIP-137' }).ok, false);
    }
  }
  // Empty and unicode messages.
  const w = makeWallet('p2tr', 'u');
  for (const m of ['', 'naïve ✓ 测试 😄']) {
    assert.ok(verifyMessage({ address: w.address, message: m, signatureBase64: signMessageBip322(w, m), network: 'regtest' }).ok);
  }
});

void test('P2PKH: bip322-js classic recoverable signature verifies as BIP-137, declared or not', () => {
  const w = makeWallet('p2pkh', 'classic');
  const sig = signMessageBip322(w, MSG);
  assert.equal(base64.decode(sig).length, 65);
  assert.deepEqual(verify(w, sig), { ok: true, method: 'BIP-137', format: 'legacy_recoverable' });
  assert.deepEqual(verify(w, sig, { method: 'BIP-137' }), { ok: true, method: 'BIP-137', format: 'legacy_recoverable' });
  assert.equal((verify(w, sig, { message: 'other' }) as { reason: string }).reason, 'invalid_signature');
  assert.equal((verify(makeWallet('p2pkh', 'other'), sig) as { reason: string }).reason, 'invalid_signature');
});

/** A recoverable signature with an explicit BIP-137 header base (27, 31, 35 or 39). */
function recoverable(priv: Uint8Array, headerBase: number, message = MSG): string {
  const rec = secp256k1.sign(bitcoinMessageHash(message), priv, { prehash: false, format: 'recovered' });
  return base64.encode(new Uint8Array([headerBase + rec[0]!, ...rec.subarray(1)]));
}

void test('BIP-137 on P2WPKH must be declared; headers 31–34 and 39–42 accepted, P2SH and uncompressed refused', () => {
  const w = makeWallet('p2wpkh', 'b137');
  const segwit = recoverable(w.privateKey, 39);
  const compressed = recoverable(w.privateKey, 31);
  assert.deepEqual(verify(w, segwit, { method: 'BIP-137' }), { ok: true, method: 'BIP-137', format: 'legacy_recoverable' });
  assert.deepEqual(verify(w, compressed, { method: 'BIP-137' }), { ok: true, method: 'BIP-137', format: 'legacy_recoverable' });
  const undeclared = verify(w, segwit);
  assert.equal(undeclared.ok, false);
  assert.match(!undeclared.ok ? undeclared.detail : '', /must be declared/);
  assert.match((verify(w, recoverable(w.privateKey, 35), { method: 'BIP-137' }) as { detail: string }).detail, /declares p2sh-p2wpkh/);
  assert.match((verify(w, recoverable(w.privateKey, 27), { method: 'BIP-137' }) as { detail: string }).detail, /declares p2pkh-uncompressed/);
  assert.equal((verify(w, recoverable(makeWallet('p2wpkh', 'o').privateKey, 39), { method: 'BIP-137' }) as { reason: string }).reason, 'invalid_signature');
  assert.equal((verify(w, recoverable(w.privateKey, 39, 'other'), { method: 'BIP-137' }) as { reason: string }).reason, 'invalid_signature');
  const tr = makeWallet('p2tr', 'b137');
  assert.equal((verify(tr, recoverable(tr.privateKey, 39), { method: 'BIP-137' }) as { reason: string }).reason, 'unsupported_address');
  // Header out of range.
  const bad = base64.decode(segwit);
  bad[0] = 43;
  assert.equal((verify(w, base64.encode(bad), { method: 'BIP-137' }) as { reason: string }).reason, 'malformed_signature');
});

void test('P2PKH uncompressed key: header 27–30 verifies, 31–34 does not', () => {
  const w = makeWallet('p2pkh', 'unc');
  const address = p2pkh(secp256k1.getPublicKey(w.privateKey, false), networkParams('regtest')).address!;
  assert.deepEqual(verify({ address }, recoverable(w.privateKey, 27)), { ok: true, method: 'BIP-137', format: 'legacy_recoverable' });
  assert.equal(verify({ address }, recoverable(w.privateKey, 31)).ok, false);
  assert.equal(verify(w, recoverable(w.privateKey, 27)).ok, false);
});

function p2pkhStackProof(w: TestWallet, digest: 'legacy' | 'bip143', message = MSG, hashType = 1): string {
  const { txid } = buildToSpend(w.script, message);
  const toSign = buildToSign(txid);
  const msg = digest === 'legacy' ? legacySighash(toSign, 0, w.script, hashType) : toSign.preimageWitnessV0(0, w.script, hashType, 0n);
  const der = secp256k1.sign(msg, w.privateKey, { prehash: false, format: 'der' });
  const sig = new Uint8Array([...der, hashType]);
  return base64.encode(new Uint8Array([2, sig.length, ...sig, 33, ...w.publicKey]));
}

void test('P2PKH two-item [sig, pubkey] stack: legacy and BIP-143 digests of to_sign, SIGHASH_ALL only', () => {
  const w = makeWallet('p2pkh', 'stack');
  for (const digest of ['legacy', 'bip143'] as const) {
    assert.deepEqual(verify(w, p2pkhStackProof(w, digest)), { ok: true, method: 'BIP-322', format: 'p2pkh_stack' }, digest);
    assert.equal(verify(w, p2pkhStackProof(w, digest, 'other')).ok, false);
    assert.equal(verify(makeWallet('p2pkh', 'o2'), p2pkhStackProof(w, digest)).ok, false);
    assert.equal(verify(w, p2pkhStackProof(w, digest, MSG, 0x81)).ok, false, 'ANYONECANPAY refused');
  }
  // The same key's P2WPKH proof is not a P2PKH proof: its to_spend pays the P2WPKH script.
  const twin = { ...makeWallet('p2wpkh', 'twin'), privateKey: w.privateKey, publicKey: w.publicKey, wif: w.wif };
  const twinAddr = p2wpkh(w.publicKey, networkParams('regtest'));
  const seg = { ...twin, address: twinAddr.address!, script: twinAddr.script };
  const segSig = signMessageBip322(seg, MSG);
  assert.ok(verify(seg, segSig).ok);
  assert.equal(verify(w, segSig).ok, false);
});

/** A full-variant signature made with scure: to_sign spending to_spend, signed like any tx. */
function fullSignature(w: TestWallet, opts: { version?: number; lockTime?: number; sequence?: number; sighash?: number } = {}): string {
  const toSpend = buildToSpend(w.script, MSG);
  const tx = new Transaction({ version: opts.version ?? 0, lockTime: opts.lockTime ?? 0, allowUnknownVersion: true, allowUnknownOutputs: true });
  tx.addInput({
    txid: toSpend.txid, index: 0, sequence: opts.sequence ?? 0,
    ...(w.family === 'p2pkh' ? { nonWitnessUtxo: toSpend.raw } : { witnessUtxo: { script: w.script, amount: 0n } }),
    ...(w.family === 'p2tr' ? { tapInternalKey: w.xOnly } : {}),
  });
  tx.addOutput({ script: new Uint8Array([0x6a]), amount: 0n });
  signInput(tx, 0, w, opts.sighash ?? (w.family === 'p2tr' ? 0 : 1));
  tx.finalize();
  return 'ful' + base64.encode(tx.extract());
}

void test('full variant signed with scure for P2PKH, P2WPKH and P2TR; time locks reported', () => {
  for (const family of ['p2pkh', 'p2wpkh', 'p2tr'] as const) {
    const w = makeWallet(family, 'full');
    assert.deepEqual(verify(w, fullSignature(w)), { ok: true, method: 'BIP-322', format: 'full' }, family);
    assert.deepEqual(verify(w, fullSignature(w, { version: 2, lockTime: 800_000, sequence: 10 })),
      { ok: true, method: 'BIP-322', format: 'full', validAt: { lockTime: 800_000, sequence: 10 } });
    assert.match((verify(w, fullSignature(w, { version: 1 })) as { detail: string }).detail, /version 1 is not 0 or 2/);
    assert.match((verify(w, fullSignature(w, { sighash: 0x81 })) as { detail: string }).detail, /sighash 0x81, expected/);
    assert.equal(verify(w, fullSignature(w), { message: 'x' }).ok, false);
  }
  // Explicit SIGHASH_ALL (65 bytes) is fine for taproot too.
  const tr = makeWallet('p2tr', 'full');
  assert.ok(verify(tr, fullSignature(tr, { sighash: 1 })).ok);
});

void test('full variant structure: extra output, non-zero output, or a tampered signature fail', () => {
  const w = makeWallet('p2wpkh', 'struct');
  const raw = base64.decode(fullSignature(w).slice(3));
  const t = Transaction.fromRaw(raw, READ_TX_OPTS);
  const extra = RawTx.decode(raw);
  extra.outputs.push({ script: new Uint8Array([0x6a]), amount: 0n });
  assert.match((verify(w, 'ful' + base64.encode(RawTx.encode(extra))) as { detail: string }).detail, /exactly one output/);
  const variants: [string, (x: Transaction) => void, RegExp][] = [
    ['amount', (x) => x.updateOutput(0, { amount: 1n }, true), /0 sats to OP_RETURN/],
    ['script', (x) => x.updateOutput(0, { script: new Uint8Array([0x6a, 0x01, 0x00]) }, true), /0 sats to OP_RETURN/],
  ];
  for (const [name, mutate, re] of variants) {
    const x = Transaction.fromRaw(raw, { ...READ_TX_OPTS });
    mutate(x);
    const r = verify(w, 'ful' + base64.encode(x.toBytes(true, true)));
    assert.match(!r.ok ? r.detail : 'ok', re, name);
  }
  const [sig, pub] = t.getInput(0).finalScriptWitness as [Uint8Array, Uint8Array];
  const flipped = new Uint8Array(sig);
  flipped[10] = flipped[10]! ^ 1;
  t.updateInput(0, { finalScriptWitness: [flipped, pub] }, true);
  assert.equal((verify(w, 'ful' + base64.encode(t.toBytes(true, true))) as { reason: string }).reason, 'invalid_signature');
  // A P2PKH scriptSig with a non-minimal push is refused (BIP-322 requires MINIMALDATA).
  const pk = makeWallet('p2pkh', 'struct');
  const pt = Transaction.fromRaw(base64.decode(fullSignature(pk).slice(3)), READ_TX_OPTS);
  const [s, k] = Script.decode(pt.getInput(0).finalScriptSig!) as [Uint8Array, Uint8Array];
  pt.updateInput(0, { finalScriptSig: new Uint8Array([0x4c, s.length, ...s, k.length, ...k]) }, true);
  assert.match((verify(pk, 'ful' + base64.encode(pt.toBytes(true, true))) as { detail: string }).detail, /not minimal/);
});

void test('invalid inputs: bad address, unsupported family, garbage signature', () => {
  const w = makeWallet('p2wpkh', 'inv');
  assert.equal((verify({ address: 'bc1qnotanaddress' }, 'AA==') as { reason: string }).reason, 'invalid_address');
  assert.equal((verify({ address: makeWallet('p2wpkh', 'inv', 'mainnet').address }, 'AA==') as { reason: string }).reason, 'invalid_address');
  assert.equal((verify(w, '!!!') as { reason: string }).reason, 'malformed_signature');
  assert.equal((verify(w, '') as { reason: string }).reason, 'malformed_signature');
  const p2wsh = scriptToAddress(new Uint8Array([0x00, 0x20, ...new Uint8Array(32).fill(7)]), 'regtest')!;
  assert.equal((verify({ address: p2wsh }, 'AA==') as { reason: string }).reason, 'unsupported_address');
});
