/**
 * Every signature path (the native libsecp256k1 addon where it loads, tiny-secp256k1's
 * WebAssembly, noble) gives the same verdicts, with the same words, on every vector of the repo
 * and on broken variants of them: flipped bits, high S, out-of-range scalars, keys off the curve.
 * The other signature tests run on the fastest path; `SECP_BACKEND=<name>` runs them on another.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { verifyEcdsaDer } from '../../src/bitcoin/ecdsa.js';
import { verifyAllInputSignatures, verifyInputSignature, type Prevout } from '../../src/bitcoin/input-signature.js';
import { verifyMessage } from '../../src/bitcoin/message-signature.js';
import { secpBackend, secpBackends, useSecpBackend, type SecpBackendName } from '../../src/bitcoin/secp.js';
import { verifySchnorr } from '../../src/bitcoin/taproot.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { VECTORS_DIR } from '../helpers/fixtures.js';
import { fundingTx, makeWallet, signInput, walletInput } from '../helpers/wallets.js';

const N = secp256k1.Point.CURVE().n;
const P = secp256k1.Point.CURVE().p;
const read = (f: string) => JSON.parse(readFileSync(`${VECTORS_DIR}/${f}`, 'utf8'));
const bip341 = read('bip341-wallet.json') as { keyPathSpending: { given: { utxosSpent: { scriptPubKey: string; amountSats: number }[] }; auxiliary: { fullySignedTx: string } }[] };
const bip143 = read('bip143-p2wpkh.json') as { input_index: number; prevout_script: string; amount_sats: number; signed_tx: string };
type Msg = { message: string; address: string; bip322_signatures?: string[]; signature?: string };
const bip322 = [read('bip322-basic.json'), read('bip322-generated.json')] as Record<string, Msg[] | unknown>[];

const flip = (b: Uint8Array, at: number) => {
  const c = Uint8Array.from(b);
  c[at % c.length]! ^= 0x01;
  return c;
};
const be32 = (n: bigint) => hex.decode(n.toString(16).padStart(64, '0'));

/** A transaction's witness item replaced (the signature of input `i`). */
function withSig(raw: Uint8Array, i: number, sig: Uint8Array): Uint8Array {
  const tx = Transaction.fromRaw(raw, READ_TX_OPTS);
  const w = tx.getInput(i).finalScriptWitness!;
  tx.updateInput(i, { finalScriptWitness: [sig, ...w.slice(1)] }, true);
  return tx.toBytes(true, true);
}

/** The same DER signature with S replaced by n − S (valid under consensus, refused by LOW_S). */
function highS(derWithType: Uint8Array): Uint8Array {
  const s = secp256k1.Signature.fromBytes(derWithType.subarray(0, -1), 'der');
  const flipped = new secp256k1.Signature(s.r, N - s.s);
  return Uint8Array.from([...flipped.toBytes('der'), derWithType[derWithType.length - 1]!]);
}

/** Every verdict this file knows how to ask, as JSON lines: the same list on every backend. */
function verdicts(): string[] {
  const out: string[] = [];
  const note = (label: string, r: unknown) => out.push(`${label}: ${JSON.stringify(r)}`);

  // BIP-341 wallet vector: 9 inputs (taproot key path, P2PKH, P2WPKH), then broken signatures.
  for (const ks of bip341.keyPathSpending) {
    const prevouts: Prevout[] = ks.given.utxosSpent.map((u) => ({ script: hex.decode(u.scriptPubKey), amount: BigInt(u.amountSats) }));
    const signed = hex.decode(ks.auxiliary.fullySignedTx);
    note('bip341 all', verifyAllInputSignatures(signed, prevouts));
    const tx = Transaction.fromRaw(signed, READ_TX_OPTS);
    for (let i = 0; i < tx.inputsLength; i++) {
      for (const rules of ['standard', 'consensus'] as const) note(`bip341 ${i} ${rules}`, verifyInputSignature(signed, i, prevouts, { rules }));
      const w = tx.getInput(i).finalScriptWitness;
      if (!w?.length) continue;
      for (const at of [0, 5, 33, 63]) note(`bip341 ${i} flip ${at}`, verifyInputSignature(withSig(signed, i, flip(w[0]!, at)), i, prevouts));
    }
  }

  // BIP-143 P2WPKH: valid, high S under both rule sets, flipped bits, wrong amount.
  const pv: Prevout[] = [
    { script: hex.decode('2103c9f4836b9a4f77fc0d81f7bcb01b7f1b35916864b9476c241ce9fc198bd25432ac'), amount: 625000000n },
    { script: hex.decode(bip143.prevout_script), amount: BigInt(bip143.amount_sats) },
  ];
  const signed143 = hex.decode(bip143.signed_tx);
  const i143 = bip143.input_index;
  const sig143 = Transaction.fromRaw(signed143, READ_TX_OPTS).getInput(i143).finalScriptWitness![0]!;
  note('bip143', verifyInputSignature(signed143, i143, pv));
  for (const rules of ['standard', 'consensus'] as const) note(`bip143 highS ${rules}`, verifyInputSignature(withSig(signed143, i143, highS(sig143)), i143, pv, { rules }));
  for (const at of [10, 30, 45, 60]) note(`bip143 flip ${at}`, verifyInputSignature(withSig(signed143, i143, flip(sig143, at)), i143, pv));
  note('bip143 amount', verifyInputSignature(signed143, i143, [pv[0]!, { ...pv[1]!, amount: pv[1]!.amount + 1n }]));

  // BIP-322: every message vector (valid and error), and each over another message.
  for (const file of bip322) {
    for (const [group, list] of Object.entries(file)) {
      if (!Array.isArray(list)) continue;
      for (const v of list as Msg[]) {
        for (const sig of v.bip322_signatures ?? (v.signature ? [v.signature] : [])) {
          for (const message of [v.message, `${v.message}!`]) {
            note(`bip322 ${group}`, verifyMessage({ address: v.address, message, signatureBase64: sig, network: 'mainnet' }));
          }
        }
      }
    }
  }

  // Wallet-made spends of every family and defined sighash type.
  for (const family of ['p2pkh', 'p2wpkh', 'p2tr'] as const) {
    const w = makeWallet(family, 'secp-backends');
    for (const t of [0x01, 0x02, 0x03, 0x81, 0x82, 0x83, ...(family === 'p2tr' ? [0x00] : [])]) {
      const f = fundingTx([{ script: w.script, amount: 50_000n }], `secp-${family}-${t}`);
      const tx = new Transaction({ allowUnknownOutputs: true });
      tx.addInput(walletInput(w, { txid: f.txid, index: 0, amount: 50_000n, prevTx: f.tx }));
      tx.addOutput({ script: w.script, amount: 40_000n });
      signInput(tx, 0, w, t);
      tx.finalize();
      const prevouts = [{ script: w.script, amount: 50_000n }];
      note(`${family} ${t}`, verifyInputSignature(tx.extract(), 0, prevouts));
      note(`${family} ${t} amount`, verifyInputSignature(tx.extract(), 0, [{ script: w.script, amount: 50_001n }]));
    }
  }

  // The curve calls themselves at their edges.
  const key = secp256k1.utils.randomSecretKey(new Uint8Array(48).fill(7));
  const msg = new Uint8Array(32).fill(9);
  const pub = secp256k1.getPublicKey(key, true);
  const pubU = secp256k1.getPublicKey(key, false);
  const der = secp256k1.sign(msg, key, { prehash: false, format: 'der' });
  const { r, s } = secp256k1.Signature.fromBytes(der, 'der');
  const mkDer = (rr: bigint, ss: bigint) => {
    const int = (x: bigint) => {
      let b = x.toString(16);
      if (b.length % 2) b = '0' + b;
      const bytes = hex.decode(b);
      return bytes[0]! & 0x80 ? Uint8Array.from([0, ...bytes]) : bytes;
    };
    const R = int(rr);
    const S = int(ss);
    return Uint8Array.from([0x30, R.length + S.length + 4, 0x02, R.length, ...R, 0x02, S.length, ...S]);
  };
  const hybrid = Uint8Array.from([pubU[64]! & 1 ? 0x07 : 0x06, ...pubU.subarray(1)]);
  for (const [label, d, k] of [
    ['valid', der, pub], ['valid uncompressed', der, pubU], ['hybrid key', der, hybrid], ['high S', mkDer(r, N - s), pub],
    ['r = 0', mkDer(0n, s), pub], ['s = 0', mkDer(r, 0n), pub], ['r = n', mkDer(N, s), pub], ['s = n', mkDer(r, N), pub],
    ['r + n', mkDer(r + N, s), pub], ['key off curve', der, Uint8Array.from([0x02, ...new Uint8Array(32).fill(0xff)])],
    ['key flipped', der, flip(pub, 20)], ['sig flipped', flip(der, 12), pub],
  ] as const) {
    for (const lowS of [true, false]) note(`ecdsa ${label} lowS=${lowS}`, verifyEcdsaDer(d, msg, k, lowS));
  }
  const xonly = schnorr.getPublicKey(key);
  const sch = schnorr.sign(msg, key, new Uint8Array(32));
  const rx = sch.subarray(0, 32);
  const sx = sch.subarray(32);
  for (const [label, sg, k] of [
    ['valid', sch, xonly], ['flipped', flip(sch, 40), xonly], ['r = p', Uint8Array.from([...be32(P), ...sx]), xonly],
    ['s = n', Uint8Array.from([...rx, ...be32(N)]), xonly], ['s + n', Uint8Array.from([...rx, ...be32(BigInt('0x' + hex.encode(sx)) + N < 2n ** 256n ? BigInt('0x' + hex.encode(sx)) + N : N)]), xonly],
    ['key = p', sch, be32(P)], ['key zero', sch, new Uint8Array(32)], ['key off curve', sch, new Uint8Array(32).fill(0xff)],
  ] as const) {
    note(`schnorr ${label}`, verifySchnorr(sg, msg, k));
  }
  // BIP-340's own vectors, the invalid ones included, through each backend's curve call.
  for (const line of readFileSync(`${VECTORS_DIR}/bip340-vectors.csv`, 'utf8').trim().split('\n').slice(1)) {
    const [index, , key, , message, signature, result] = line.split(',');
    const got = secpBackend().schnorr(hex.decode(signature!.toLowerCase()), hex.decode(message!.toLowerCase()), hex.decode(key!.toLowerCase()));
    assert.equal(got, result === 'TRUE', `BIP-340 vector ${index} on ${secpBackend().name}`);
    note(`bip340 ${index}`, got);
  }
  return out;
}

void test('every backend this machine can load is listed, noble always', () => {
  const names = secpBackends.map((b) => b.name);
  assert.ok(names.includes('noble'));
  assert.ok(names.includes('tiny-secp256k1'), 'tiny-secp256k1 is a dependency');
  assert.equal(names[names.length - 1], 'noble');
});

void test('each backend gives the same verdicts as noble on every vector and broken variant', () => {
  const before = secpBackend().name;
  try {
    useSecpBackend('noble');
    const reference = verdicts();
    const ok = reference.filter((l) => /: (true|\{"ok":true)/.test(l)).length;
    assert.ok(ok > 30 && reference.length - ok > 60, `valid ${ok}, invalid ${reference.length - ok}`);
    // Spot checks of the policy the backends must not change.
    assert.ok(reference.includes('bip143 highS standard: ' + JSON.stringify({ ok: false, input: 1, error: 'input 1: signature has high S (BIP-146 LOW_S)', detail: 'signature has high S (BIP-146 LOW_S)', scriptError: 'Non-canonical signature: S value is unnecessarily high' })));
    assert.ok(reference.some((l) => l.startsWith('bip143 highS consensus: {"ok":true')));
    assert.ok(reference.includes('ecdsa hybrid key lowS=false: {"ok":false,"error":"ECDSA signature does not verify"}'));
    assert.ok(reference.includes('ecdsa high S lowS=false: {"ok":true}'));
    for (const name of secpBackends.map((b) => b.name).filter((n): n is SecpBackendName => n !== 'noble')) {
      useSecpBackend(name);
      const got = verdicts();
      assert.equal(got.length, reference.length);
      for (let k = 0; k < got.length; k++) assert.equal(got[k], reference[k], `${name}`);
    }
  } finally {
    useSecpBackend(before);
  }
});
