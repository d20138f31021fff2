/** Unit rules: BIP-66 strict DER, sighash names, tapscript leaf recognition, BIP-112 CSV, annex split. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Script } from '@scure/btc-signer';
import { isStrictDerSignature, isStrictPubkey, verifyEcdsaDer } from '../../src/bitcoin/ecdsa.js';
import { formatSighash, isDefinedEcdsaSighash, isValidTaprootExplicitSighash, sighashName } from '../../src/bitcoin/sighash.js';
import { checkSequenceVerify, parseSchnorrSignature, parseSimpleTapscript, splitTaprootWitness } from '../../src/bitcoin/taproot.js';

// From the BIP-143 P2WPKH vector (R and S without padding) and the BIP-341 vector's P2PKH input (padded R).
const R = '3609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a';
const S = '573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee';
const der = (r: string, s: string, hashType = '01') => {
  const body = `02${(r.length / 2).toString(16).padStart(2, '0')}${r}02${(s.length / 2).toString(16).padStart(2, '0')}${s}`;
  return hex.decode(`30${(body.length / 2).toString(16).padStart(2, '0')}${body}${hashType}`);
};

void test('BIP-66 strict DER: the consensus rules one by one', () => {
  assert.equal(isStrictDerSignature(der(R, S)), true);
  assert.equal(isStrictDerSignature(hex.decode('3045022100' + '8f3b8f8f0537c420654d2283673a761b7ee2ea3c130753103e08ce79201cf32a'
    + '022079e7ab904a1980ef1c5890b648c8783f4d10103dd62f740d13daa79e298d50c201')), true, 'padding needed for a high R');
  const bad: [string, Uint8Array][] = [
    ['negative R', der('b6' + R.slice(2), S)],
    ['negative S', der(R, 'd7' + S.slice(2))],
    ['needless R padding', der('00' + R, S)],
    ['needless S padding', der(R, '00' + S)],
    ['empty R', der('', S)],
    ['empty S', der(R, '')],
    ['not a compound', (() => { const b = der(R, S); b[0] = 0x31; return b; })()],
    ['R not an integer', (() => { const b = der(R, S); b[2] = 0x03; return b; })()],
    ['S not an integer', (() => { const b = der(R, S); b[4 + 32 + 0] = 0x03; return b; })()],
    ['wrong total length', (() => { const b = der(R, S); b[1] = b[1]! + 1; return b; })()],
    ['trailing garbage', new Uint8Array([...der(R, S), 0x00])],
    ['too short', hex.decode('3006020101020101')],
    ['too long', der('01' + R + R.slice(0, 4), S)],
  ];
  for (const [name, sig] of bad) assert.equal(isStrictDerSignature(sig), false, name);
  assert.equal(verifyEcdsaDer(new Uint8Array([1, 2, 3]), new Uint8Array(32), new Uint8Array(33), true).ok, false);
});

void test('pubkey encodings and sighash helpers', () => {
  assert.equal(isStrictPubkey(new Uint8Array([0x02, ...new Uint8Array(32)])), true);
  assert.equal(isStrictPubkey(new Uint8Array([0x04, ...new Uint8Array(64)])), true);
  assert.equal(isStrictPubkey(new Uint8Array([0x06, ...new Uint8Array(64)])), false, 'hybrid');
  assert.equal(isStrictPubkey(new Uint8Array([0x02, ...new Uint8Array(31)])), false);
  assert.deepEqual([0, 1, 2, 3, 0x81, 0x82, 0x83, 0x04, 0x80, 0x21].map(sighashName),
    ['DEFAULT', 'ALL', 'NONE', 'SINGLE', 'ALL|ANYONECANPAY', 'NONE|ANYONECANPAY', 'SINGLE|ANYONECANPAY', '0x04', '0x80', '0x21']);
  assert.equal(formatSighash(0x83), '0x83');
  assert.equal(formatSighash(1), '0x01');
  assert.deepEqual([0, 1, 3, 4, 0x80, 0x83, 0x84].map(isDefinedEcdsaSighash), [false, true, true, false, false, true, false]);
  assert.deepEqual([0, 1, 0x83, 0x84].map(isValidTaprootExplicitSighash), [false, true, true, false]);
  assert.deepEqual(parseSchnorrSignature(new Uint8Array(64)), { sig: new Uint8Array(64), hashType: 0 });
  assert.deepEqual(parseSchnorrSignature(new Uint8Array([...new Uint8Array(64), 0x83])), { sig: new Uint8Array(64), hashType: 0x83 });
  assert.deepEqual(parseSchnorrSignature(new Uint8Array(63)), { error: 'schnorr signature must be 64 or 65 bytes, got 63' });
});

void test('tapscript leaves: only the market shapes are recognized', () => {
  const k1 = new Uint8Array(32).fill(1);
  const k2 = new Uint8Array(32).fill(2);
  assert.deepEqual(parseSimpleTapscript(Script.encode([k1, 'CHECKSIG'])), { keys: [k1] });
  assert.deepEqual(parseSimpleTapscript(Script.encode([k1, 'CHECKSIGVERIFY', k2, 'CHECKSIG'])), { keys: [k1, k2] });
  assert.deepEqual(parseSimpleTapscript(Script.encode([144, 'CHECKSEQUENCEVERIFY', 'DROP', k1, 'CHECKSIG'])), { keys: [k1], csv: 144 });
  assert.deepEqual(parseSimpleTapscript(Script.encode([5, 'CHECKSEQUENCEVERIFY', 'DROP', k1, 'CHECKSIG'])), { keys: [k1], csv: 5 });
  const rejected: Uint8Array[] = [
    Script.encode([k1, 'CHECKSIGVERIFY']), // must end with CHECKSIG
    Script.encode([k1, 'CHECKSIG', k2, 'CHECKSIG']), // CHECKSIG in the middle
    Script.encode([new Uint8Array(33).fill(2), 'CHECKSIG']), // not x-only
    Script.encode(['CHECKSEQUENCEVERIFY', 'DROP', k1, 'CHECKSIG']),
    new Uint8Array([0x02, 0x05, 0x00, 0xb2, 0x75, 0x20, ...k1, 0xac]), // non-minimal CSV operand
    Script.encode([k1, 'CHECKSIGADD', 1, 'NUMEQUAL']),
    new Uint8Array([0xff]), // undecodable
    new Uint8Array(),
  ];
  for (const s of rejected) assert.equal(parseSimpleTapscript(s), undefined, hex.encode(s));
});

void test('BIP-112 CSV rules', () => {
  assert.equal(checkSequenceVerify(10, 10, 2), undefined);
  assert.equal(checkSequenceVerify(10, 0xfffffffe, 2), 'CSV: input sequence has the disable flag set');
  assert.equal(checkSequenceVerify(0x80000000, 0, 1), undefined, 'operand disable flag: NOP');
  assert.match(checkSequenceVerify(10, 9, 2)!, /not met/);
  assert.match(checkSequenceVerify(10, 10, 1)!, /version/);
  assert.equal(checkSequenceVerify(0x00400000 | 3, 0x00400000 | 3, 2), undefined, 'time-based lock');
  assert.match(checkSequenceVerify(0x00400000 | 3, 3, 2)!, /lock type/);
  // Bits outside the mask are ignored on both sides.
  assert.equal(checkSequenceVerify(0x00010000 | 10, 0x00020000 | 10, 2), undefined);
});

void test('BIP-341 witness split: annex only with two or more items', () => {
  const sig = new Uint8Array(64);
  const annex = new Uint8Array([0x50, 1]);
  assert.deepEqual(splitTaprootWitness([sig]), { kind: 'key', signature: sig });
  assert.deepEqual(splitTaprootWitness([sig, annex]), { kind: 'key', signature: sig, annex });
  assert.deepEqual(splitTaprootWitness([annex]), { kind: 'key', signature: annex }, 'a single 0x50 item is not an annex');
  assert.deepEqual(splitTaprootWitness([]), { error: 'empty taproot witness' });
  const s = splitTaprootWitness([sig, sig, new Uint8Array([0xac]), new Uint8Array(33), annex]);
  assert.ok('kind' in s && s.kind === 'script');
  assert.equal(s.stack.length, 2);
  assert.deepEqual(s.annex, annex);
});
