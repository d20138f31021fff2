import { Transaction } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { verifyMessage } from '../src/bitcoin/message-signature.js';
import { verifyInputSignature } from '../src/bitcoin/input-signature.js';
import { nativeSchnorrFrom, secpBackend, secpBackends, useSecpBackend } from '../src/bitcoin/secp.js';
import { READ_TX_OPTS } from '../src/bitcoin/transaction.js';
import { TxDigests } from '../src/bitcoin/tx-digests.js';
import { makeWallet, signInput, signMessageBip322, walletInput } from '../test/helpers/wallets.js';

export interface VerifyResult {
  name: string;
  per_second: number;
  us_each: number;
}

function measure(name: string, fn: () => boolean, seconds = 1.5): VerifyResult {
  for (let i = 0; i < 20; i++) if (!fn()) throw new Error(`${name}: verification failed during warm-up`);
  let n = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(seconds * 1e9));
  while (process.hrtime.bigint() - start < budget) {
    if (!fn()) throw new Error(`${name}: verification failed`);
    n++;
  }
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  return { name, per_second: Math.round(n / secs), us_each: Math.round((secs / n) * 1e6 * 10) / 10 };
}

/** A signed one-input spend of `family` with `sighash`, and what its signature check needs. */
function signedSpend(family: 'p2wpkh' | 'p2tr' | 'p2pkh', sighash: number, label: string) {
  const w = makeWallet(family, label);
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput(walletInput(w, { txid: 'aa'.repeat(32), index: 0, amount: 30_000n }));
  tx.addOutput({ script: w.script, amount: 25_000n });
  signInput(tx, 0, w, sighash);
  tx.finalize();
  const raw = tx.extract();
  const prevouts = [{ script: w.script, amount: 30_000n }];
  return { w, raw, prevouts };
}

export interface SignatureFigures {
  backend: string;
  /** One whole input check (parse, digest, policy, curve) of P2WPKH ALL and P2TR DEFAULT. */
  verify_ecdsa_us: number;
  verify_schnorr_us: number;
  /** The bare curve call of each library on the same signature and digest (no parse, no digest). */
  tiny_secp256k1_ecdsa_us: number;
  tiny_secp256k1_schnorr_us: number;
  native_ecdsa_us?: number;
  noble_ecdsa_us: number;
  noble_schnorr_us: number;
  /** The whole input check pinned to each backend. */
  verify_ecdsa_tiny_us: number;
  verify_ecdsa_noble_us: number;
}

/**
 * The headline figures: our whole input check on the fastest backend, beside each library's
 * bare curve call on the very same signature, in this process.
 */
export function signatureFigures(): { figures: SignatureFigures; rows: VerifyResult[] } {
  const rows: VerifyResult[] = [];
  const ecdsa = signedSpend('p2wpkh', 0x01, 'bench-psbt');
  const schnorr = signedSpend('p2tr', 0x00, 'bench-psbt');
  const t = Transaction.fromRaw(ecdsa.raw, READ_TX_OPTS);
  const [derWithType, pub] = t.getInput(0).finalScriptWitness! as [Uint8Array, Uint8Array];
  const compact = secp256k1.Signature.fromBytes(derWithType.subarray(0, -1), 'der').toBytes('compact');
  const ecdsaMsg = new TxDigests(t, ecdsa.prevouts).witnessV0(0, new Uint8Array([0x76, 0xa9, 0x14, ...ecdsa.w.script.subarray(2), 0x88, 0xac]), 0x01, 30_000n);
  const ts = Transaction.fromRaw(schnorr.raw, READ_TX_OPTS);
  const schnorrSig = ts.getInput(0).finalScriptWitness![0]!;
  const schnorrMsg = new TxDigests(ts, schnorr.prevouts).witnessV1(0, 0x00);
  const xonly = schnorr.w.script.subarray(2);

  const active = secpBackend().name;
  const whole = (s: typeof ecdsa) => () => verifyInputSignature(s.raw, 0, s.prevouts).ok;
  const vE = measure(`input signature (p2wpkh ALL), ${active}`, whole(ecdsa));
  const vS = measure(`input signature (p2tr DEFAULT), ${active}`, whole(schnorr));
  rows.push(vE, vS);
  const peers: Record<string, number> = {};
  for (const b of secpBackends) {
    const e = measure(`bare ECDSA verify, ${b.name}`, () => b.ecdsa(compact, ecdsaMsg, pub));
    const s = measure(`bare Schnorr verify, ${b.name}${b.name === 'native' ? ` (${nativeSchnorrFrom} inside)` : ''}`, () => b.schnorr(schnorrSig, schnorrMsg, xonly));
    peers[`${b.name}_ecdsa`] = e.us_each;
    peers[`${b.name}_schnorr`] = s.us_each;
    rows.push(e, s);
  }
  const pinned = (name: 'tiny-secp256k1' | 'noble') => {
    useSecpBackend(name);
    try {
      return measure(`input signature (p2wpkh ALL), ${name}`, whole(ecdsa));
    } finally {
      useSecpBackend(active);
    }
  };
  const vTiny = pinned('tiny-secp256k1');
  const vNoble = pinned('noble');
  rows.push(vTiny, vNoble);
  return {
    rows,
    figures: {
      backend: active,
      verify_ecdsa_us: vE.us_each,
      verify_schnorr_us: vS.us_each,
      tiny_secp256k1_ecdsa_us: peers['tiny-secp256k1_ecdsa']!,
      tiny_secp256k1_schnorr_us: peers['tiny-secp256k1_schnorr']!,
      ...(peers.native_ecdsa === undefined ? {} : { native_ecdsa_us: peers.native_ecdsa }),
      noble_ecdsa_us: peers.noble_ecdsa!,
      noble_schnorr_us: peers.noble_schnorr!,
      verify_ecdsa_tiny_us: vTiny.us_each,
      verify_ecdsa_noble_us: vNoble.us_each,
    },
  };
}

/** Signature verifications per second on one core: the work every sign-in and every trade pays. */
export function verificationBenchmarks(): VerifyResult[] {
  const out: VerifyResult[] = [];
  for (const family of ['p2wpkh', 'p2tr', 'p2pkh'] as const) {
    const w = makeWallet(family, 'bench');
    const message = `bench sign-in ${family}`;
    const sig = signMessageBip322(w, message);
    out.push(measure(`message signature (${family === 'p2pkh' ? 'BIP-137' : 'BIP-322'} ${family})`, () => verifyMessage({ address: w.address, message, signatureBase64: sig, network: 'regtest' }).ok));
  }
  for (const [family, sighash, label] of [
    ['p2wpkh', 0x83, 'SINGLE|ANYONECANPAY'],
    ['p2tr', 0x83, 'SINGLE|ANYONECANPAY'],
  ] as const) {
    const s = signedSpend(family, sighash, 'bench-psbt');
    out.push(measure(`input signature (${family} ${label})`, () => verifyInputSignature(s.raw, 0, s.prevouts).ok));
  }
  return out;
}
