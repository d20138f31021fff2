/** BIP-322 basic and generated vectors (valid and invalid) through verifyMessage. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hex } from '@scure/base';
import { buildToSign, buildToSpend, bip322MessageHash } from '../../src/bitcoin/bip322.js';
import { decodeAddress } from '../../src/bitcoin/address.js';
import { verifyMessage } from '../../src/bitcoin/message-signature.js';
import { VECTORS_DIR } from '../helpers/fixtures.js';

const VECTORS = VECTORS_DIR;
type Signed = { message: string; address: string; type: string; bip322_signatures: string[]; tx_version?: number; lock_time?: number; sequence?: number };
type Err = { description: string; message: string; address: string; signature: string; error_substr: string };
const basic = JSON.parse(readFileSync(`${VECTORS}/bip322-basic.json`, 'utf8')) as {
  tx_hashes: { message: string; address: string; message_hash: string; to_spend_tx_hash: string; to_sign_tx_hash: string }[];
  simple: Signed[]; error: Err[];
};
const generated = JSON.parse(readFileSync(`${VECTORS}/bip322-generated.json`, 'utf8')) as {
  simple: Signed[]; full: Signed[]; proof_of_funds: Signed[]; error: Err[];
};

/** Families verifyMessage supports; the others (P2SH, P2WSH) must be refused as unsupported. */
const SUPPORTED = new Set(['p2wpkh', 'p2tr', 'p2pkh']);
const familyOf = (address: string) => {
  const d = decodeAddress(address, 'mainnet');
  assert.ok(d.ok, address);
  return d.family;
};

void test('BIP-322 message hash, to_spend and to_sign txids', () => {
  assert.equal(basic.tx_hashes.length, 3);
  for (const v of basic.tx_hashes) {
    assert.equal(hex.encode(bip322MessageHash(v.message)), v.message_hash);
    const d = decodeAddress(v.address, 'mainnet');
    assert.ok(d.ok);
    const toSpend = buildToSpend(d.script, v.message);
    assert.equal(toSpend.txid, v.to_spend_tx_hash);
    assert.equal(buildToSign(toSpend.txid).id, v.to_sign_tx_hash);
  }
});

void test('every simple vector verifies for P2WPKH and P2TR (with and without the smp prefix)', () => {
  let checked = 0;
  for (const v of [...basic.simple, ...generated.simple]) {
    for (const sig of v.bip322_signatures) {
      const r = verifyMessage({ address: v.address, message: v.message, signatureBase64: sig, network: 'mainnet' });
      if (!SUPPORTED.has(familyOf(v.address))) {
        assert.deepEqual([r.ok, !r.ok && r.reason], [false, 'unsupported_address'], v.type);
        continue;
      }
      assert.deepEqual(r, { ok: true, method: 'BIP-322', format: 'simple' }, `${v.type} ${v.message}`);
      checked++;
      // The same signature over another message, or for the mainnet address on regtest, fails.
      const wrong = verifyMessage({ address: v.address, message: v.message + '!', signatureBase64: sig, network: 'mainnet' });
      assert.equal(!wrong.ok && wrong.reason, 'invalid_signature');
      const net = verifyMessage({ address: v.address, message: v.message, signatureBase64: sig, network: 'regtest' });
      assert.equal(!net.ok && net.reason, 'invalid_address');
    }
  }
  assert.equal(checked, 7); // 4 basic P2WPKH, 1 basic P2TR (unprefixed), 1 generated P2WPKH, 1 generated P2TR
});

void test('full vectors verify for P2PKH, P2WPKH and P2TR, reporting the time locks', () => {
  let checked = 0;
  for (const v of generated.full) {
    const sig = v.bip322_signatures[0]!;
    const r = verifyMessage({ address: v.address, message: v.message, signatureBase64: sig, network: 'mainnet' });
    const family = familyOf(v.address);
    if (!SUPPORTED.has(family)) {
      assert.deepEqual([r.ok, !r.ok && r.reason], [false, 'unsupported_address'], v.type);
    } else if (v.type === 'p2tr-time-lock') {
      // Script path with an OP_IF leaf: not a leaf this verifier understands, so never accepted.
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.detail : '', /unsupported tapscript leaf/);
    } else {
      assert.deepEqual(r, { ok: true, method: 'BIP-322', format: 'full', validAt: { lockTime: v.lock_time, sequence: v.sequence } }, v.type);
      checked++;
    }
  }
  assert.equal(checked, 3);
});

void test('proof-of-funds vectors are refused (they need the UTXO set)', () => {
  assert.ok(generated.proof_of_funds.length > 0);
  for (const v of generated.proof_of_funds) {
    const r = verifyMessage({ address: v.address, message: v.message, signatureBase64: v.bip322_signatures[0]!, network: 'mainnet' });
    assert.equal(r.ok, false);
  }
});

void test('every error vector is rejected, with the vector\'s reason', () => {
  const all = [...basic.error, ...generated.error];
  assert.equal(all.length, 8 + 28);
  for (const v of all) {
    const r = verifyMessage({ address: v.address, message: v.message, signatureBase64: v.signature, network: 'mainnet' });
    assert.equal(r.ok, false, v.description);
    if (r.ok) continue;
    if (!SUPPORTED.has(familyOf(v.address))) {
      assert.equal(r.reason, 'unsupported_address', v.description);
      continue;
    }
    const want = v.error_substr === 'invalid signature' ? 'invalid_signature' : 'malformed_signature';
    assert.equal(r.reason, want, v.description);
    assert.ok(r.detail.includes(v.error_substr), `${v.description}: ${r.detail}`);
  }
});
