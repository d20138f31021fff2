/**
 * Signature digests of one transaction with the shared parts computed once.
 *
 * BIP-143 (segwit v0) and BIP-341 (taproot) digests of different inputs share most of their
 * bytes: the hashes of every outpoint, sequence, amount, script and output. scure's
 * `preimageWitnessV0/V1` recompute those for each input (O(inputs²) hashing for a cart); this
 * object computes each once per transaction, on first use, and then each input's digest hashes
 * only its own fields. The byte layout is the BIPs'; test/bitcoin/tx-digests.test.ts checks every
 * input and hash type against scure and the BIP-341 vector.
 *
 * The transaction must not change while a `TxDigests` of it is in use: verifiers build one per
 * request (per parsed transaction), never keep one.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { RawOutput, VarBytes } from '@scure/btc-signer/script.js';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import type { Transaction } from '@scure/btc-signer';
import { SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_DEFAULT, SIGHASH_NONE, SIGHASH_SINGLE } from './sighash.js';
import { legacySighash, type Prevout } from './transaction.js';

const ZERO32 = new Uint8Array(32);
const sha256d = (b: Uint8Array) => sha256(sha256(b));
// Little-endian integers as bytes, written directly (a DataView per call costs more than the hash input it makes).
const u32 = (n: number) => new Uint8Array([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]);
const u64 = (n: bigint) => {
  const lo = Number(n & 0xffffffffn);
  const hi = Number(n >> 32n);
  return new Uint8Array([lo & 0xff, (lo >>> 8) & 0xff, (lo >>> 16) & 0xff, lo >>> 24, hi & 0xff, (hi >>> 8) & 0xff, (hi >>> 16) & 0xff, hi >>> 24]);
};

/** The unsigned fields of a transaction, when the caller has read them already (scure's getInput/getOutput copy the whole input or output on every call). */
export interface ReadTransaction {
  inputs: ReadonlyArray<{ txid?: Uint8Array; index?: number; sequence?: number }>;
  outputs: ReadonlyArray<{ script?: Uint8Array; amount?: bigint }>;
}

interface Shared {
  prevouts: Uint8Array;
  sequences: Uint8Array;
  outputs: Uint8Array;
}
type SharedV1 = Shared & { amounts: Uint8Array; scripts: Uint8Array };

export class TxDigests {
  readonly inputsLength: number;
  readonly outputsLength: number;
  readonly version: number;
  readonly lockTime: number;
  /** Serialized outpoint (txid little-endian ‖ vout) and sequence of each input. */
  private readonly outpoints: Uint8Array[];
  readonly sequences: number[];
  private readonly outputs: Uint8Array[];
  private v0?: Shared;
  private v1?: SharedV1;

  /** `read`: the unsigned fields of `tx` as the caller read them (otherwise read here). */
  constructor(readonly tx: Transaction, readonly prevouts: readonly Prevout[], read?: ReadTransaction) {
    this.inputsLength = tx.inputsLength;
    this.outputsLength = tx.outputsLength;
    this.version = tx.version;
    this.lockTime = tx.lockTime;
    this.outpoints = [];
    this.sequences = [];
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = read ? read.inputs[i]! : tx.getInput(i);
      if (input.txid === undefined || input.index === undefined) throw new Error(`input ${i} has no outpoint`);
      this.outpoints.push(concatBytes(Uint8Array.from(input.txid).reverse(), u32(input.index)));
      this.sequences.push(input.sequence ?? 0xffffffff);
    }
    this.outputs = [];
    for (let o = 0; o < tx.outputsLength; o++) {
      const out = read ? read.outputs[o]! : tx.getOutput(o);
      if (out.script === undefined || out.amount === undefined) throw new Error(`output ${o} has no script or amount`);
      this.outputs.push(RawOutput.encode({ amount: out.amount, script: out.script }));
    }
  }

  /** Single-SHA256 of the concatenations (BIP-341's sha_*); BIP-143 hashes them once more. */
  private shared(): SharedV1 {
    return (this.v1 ??= {
      prevouts: sha256(concatBytes(...this.outpoints)),
      sequences: sha256(concatBytes(...this.sequences.map(u32))),
      outputs: sha256(concatBytes(...this.outputs)),
      amounts: sha256(concatBytes(...this.prevouts.map((p) => u64(p.amount)))),
      scripts: sha256(concatBytes(...this.prevouts.map((p) => VarBytes.encode(p.script)))),
    });
  }

  private sharedV0(): Shared {
    if (this.v0) return this.v0;
    const s = this.shared();
    // sha256d(x) = sha256(sha256(x)): BIP-143's double hashes reuse BIP-341's single ones.
    return (this.v0 = { prevouts: sha256(s.prevouts), sequences: sha256(s.sequences), outputs: sha256(s.outputs) });
  }

  /** Legacy `SignatureHash` (scure's, including SINGLE without an output → uint256 1). */
  legacy(idx: number, scriptCode: Uint8Array, hashType: number): Uint8Array {
    return legacySighash(this.tx, idx, scriptCode, hashType);
  }

  /** BIP-143 digest, the rules of Bitcoin Core's `SignatureHash` for SigVersion::WITNESS_V0. */
  witnessV0(idx: number, scriptCode: Uint8Array, hashType: number, amount: bigint): Uint8Array {
    if (!Number.isInteger(idx) || idx < 0 || idx >= this.inputsLength) throw new Error(`Invalid input idx=${idx}`);
    const base = hashType & 0x1f;
    const anyone = (hashType & SIGHASH_ANYONECANPAY) !== 0;
    const single = base === SIGHASH_SINGLE;
    const none = base === SIGHASH_NONE;
    const s = this.sharedV0();
    let outputs: Uint8Array = ZERO32;
    if (!single && !none) outputs = s.outputs;
    else if (single && idx < this.outputsLength) outputs = sha256d(this.outputs[idx]!);
    return sha256d(concatBytes(
      u32(this.version), anyone ? ZERO32 : s.prevouts, anyone || single || none ? ZERO32 : s.sequences,
      this.outpoints[idx]!, VarBytes.encode(scriptCode), u64(amount), u32(this.sequences[idx]!),
      outputs, u32(this.lockTime), u32(hashType),
    ));
  }

  /**
   * BIP-341 SigMsg hashed with the TapSighash tag. `leafScript` for a script-path spend (leaf
   * version 0xc0, no OP_CODESEPARATOR), `annex` when the witness carries one. Throws for SINGLE
   * without a matching output: BIP-341 defines no digest there.
   */
  witnessV1(idx: number, hashType: number, leafScript?: Uint8Array, annex?: Uint8Array, leafVersion = 0xc0): Uint8Array {
    if (!Number.isInteger(idx) || idx < 0 || idx >= this.inputsLength) throw new Error(`Invalid input idx=${idx}`);
    if (this.prevouts.length !== this.inputsLength) throw new Error('a prevout is needed for every input');
    const outType = hashType === SIGHASH_DEFAULT ? SIGHASH_ALL : hashType & 0x03;
    const anyone = (hashType & SIGHASH_ANYONECANPAY) !== 0;
    if (outType === SIGHASH_SINGLE && idx >= this.outputsLength) {
      throw new Error(`Input with sighash SINGLE, but there is no output with corresponding index=${idx}`);
    }
    const parts: Uint8Array[] = [new Uint8Array([0x00, hashType]), u32(this.version), u32(this.lockTime)];
    if (!anyone) {
      const s = this.shared();
      parts.push(s.prevouts, s.amounts, s.scripts, s.sequences);
    }
    if (outType === SIGHASH_ALL) parts.push(this.shared().outputs);
    parts.push(new Uint8Array([(annex ? 1 : 0) | (leafScript ? 2 : 0)]));
    if (anyone) {
      const p = this.prevouts[idx]!;
      parts.push(this.outpoints[idx]!, u64(p.amount), VarBytes.encode(p.script), u32(this.sequences[idx]!));
    } else parts.push(u32(idx));
    if (annex) parts.push(sha256(VarBytes.encode(annex)));
    if (outType === SIGHASH_SINGLE) parts.push(sha256(this.outputs[idx]!));
    if (leafScript) parts.push(tapLeafHash(leafScript, leafVersion), new Uint8Array([0x00]), u32(0xffffffff));
    return schnorr.utils.taggedHash('TapSighash', ...parts);
  }
}
