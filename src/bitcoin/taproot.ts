/**
 * Taproot (BIP-341 / BIP-342) building blocks used by the input verifier: splitting the witness
 * (annex, script path), checking a control block against the output key, reading Schnorr
 * signatures with their hash type, and recognising the simple tapscript leaves the market uses.
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { equalBytes } from '@noble/curves/utils.js';
import { OpToNum, Script, type ScriptType } from '@scure/btc-signer/script.js';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { taprootTweakPubkey } from '@scure/btc-signer/utils.js';
import { secpBackend } from './secp.js';
import { SIGHASH_DEFAULT, formatSighash, isValidTaprootExplicitSighash } from './sighash.js';

/** BIP-342 tapscript leaf version. */
export const TAPSCRIPT_LEAF_VERSION = 0xc0;
/** BIP-341: the annex is the last witness item when there are ≥2 items and it starts with 0x50. */
export const ANNEX_TAG = 0x50;

export type TaprootWitness =
  | { kind: 'key'; signature: Uint8Array; annex?: Uint8Array }
  | { kind: 'script'; stack: Uint8Array[]; script: Uint8Array; control: Uint8Array; annex?: Uint8Array };

/** Split a witness per BIP-341 "Script validation rules": annex removal, then key or script path. */
export function splitTaprootWitness(witness: readonly Uint8Array[]): TaprootWitness | { error: string } {
  let items = witness.slice();
  let annex: Uint8Array | undefined;
  const last = items[items.length - 1];
  if (items.length >= 2 && last !== undefined && last[0] === ANNEX_TAG) {
    annex = last;
    items = items.slice(0, -1);
  }
  if (items.length === 0) return { error: 'empty taproot witness' };
  if (items.length === 1) return { kind: 'key', signature: items[0]!, ...(annex ? { annex } : {}) };
  const control = items[items.length - 1]!;
  const script = items[items.length - 2]!;
  return { kind: 'script', stack: items.slice(0, -2), script, control, ...(annex ? { annex } : {}) };
}

export type SchnorrSig = { sig: Uint8Array; hashType: number };

/**
 * BIP-341: a 64-byte signature uses SIGHASH_DEFAULT (0x00); a 65-byte one carries an explicit,
 * non-zero hash type in its last byte. Anything else fails (consensus).
 */
export function parseSchnorrSignature(raw: Uint8Array): SchnorrSig | { error: string } {
  if (raw.length === 64) return { sig: raw, hashType: SIGHASH_DEFAULT };
  if (raw.length === 65) {
    const hashType = raw[64]!;
    if (!isValidTaprootExplicitSighash(hashType)) {
      return { error: `invalid taproot sighash ${formatSighash(hashType)}` };
    }
    return { sig: raw.subarray(0, 64), hashType };
  }
  return { error: `schnorr signature must be 64 or 65 bytes, got ${raw.length}` };
}

/** BIP-340 verification of a 64-byte signature over a 32-byte sighash (never throws; `secp.ts`). */
export function verifySchnorr(sig: Uint8Array, msg: Uint8Array, xonly: Uint8Array): boolean {
  return sig.length === 64 && msg.length === 32 && xonly.length === 32 && secpBackend().schnorr(sig, msg, xonly);
}

/**
 * BIP-341 control block check: the leaf, hashed up the merkle path with the internal key,
 * must give the output key `outputKey` (32-byte x-only) with the parity bit of the control block.
 * Returns the leaf version on success.
 */
export function verifyControlBlock(
  script: Uint8Array,
  control: Uint8Array,
  outputKey: Uint8Array,
): { ok: true; leafVersion: number; internalKey: Uint8Array } | { ok: false; error: string } {
  // 33 + 32m bytes, m ≤ 128 (BIP-341).
  if (control.length < 33 || (control.length - 33) % 32 !== 0 || control.length > 33 + 32 * 128) {
    return { ok: false, error: `control block has invalid length ${control.length}` };
  }
  const leafVersion = control[0]! & 0xfe;
  const parity = control[0]! & 1;
  const internalKey = control.subarray(1, 33);
  try {
    let k = tapLeafHash(script, leafVersion);
    for (let off = 33; off < control.length; off += 32) {
      const e = control.subarray(off, off + 32);
      // TapBranch hashes the two children in lexicographic order.
      k = compareBytes(k, e) < 0 ? schnorr.utils.taggedHash('TapBranch', k, e) : schnorr.utils.taggedHash('TapBranch', e, k);
    }
    const [q, qParity] = taprootTweakPubkey(internalKey, k);
    if (!equalBytes(q, outputKey) || qParity !== parity) {
      return { ok: false, error: 'control block does not commit to the output key' };
    }
  } catch {
    return { ok: false, error: 'control block internal key is not a valid point' };
  }
  return { ok: true, leafVersion, internalKey };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * The tapscript leaves this verifier understands (the market's escrow and refund leaves):
 *   [<n> OP_CHECKSEQUENCEVERIFY OP_DROP] <k1> OP_CHECKSIGVERIFY ... <kn-1> OP_CHECKSIGVERIFY <kn> OP_CHECKSIG
 * `keys` are in script order. The witness stack holds one signature per key in *reverse* order
 * (the top of the stack, i.e. the last witness item, is consumed by the first key).
 */
export type SimpleTapscript = { keys: Uint8Array[]; csv?: number };

export function parseSimpleTapscript(script: Uint8Array): SimpleTapscript | undefined {
  let ops: ScriptType;
  try {
    ops = Script.decode(script);
  } catch {
    return undefined;
  }
  let i = 0;
  let csv: number | undefined;
  if (ops[1] === 'CHECKSEQUENCEVERIFY' && ops[2] === 'DROP') {
    // CSV takes a 5-byte script number (BIP-112); it must be minimally encoded.
    const n = ops[0] === undefined ? undefined : OpToNum(ops[0], 5, true);
    if (n === undefined || n < 0) return undefined;
    csv = n;
    i = 3;
  }
  const keys: Uint8Array[] = [];
  for (; i < ops.length; i += 2) {
    const key = ops[i];
    const op = ops[i + 1];
    if (!(key instanceof Uint8Array) || key.length !== 32) return undefined;
    const isLast = i + 2 === ops.length;
    if (op !== (isLast ? 'CHECKSIG' : 'CHECKSIGVERIFY')) return undefined;
    keys.push(key);
  }
  if (keys.length === 0) return undefined;
  return csv === undefined ? { keys } : { keys, csv };
}

/**
 * BIP-112 OP_CHECKSEQUENCEVERIFY for operand `n` on an input with `sequence` in a transaction of
 * `version`. Returns an error string, or undefined when the check passes.
 */
export function checkSequenceVerify(n: number, sequence: number, version: number): string | undefined {
  const DISABLE = 0x80000000;
  const TYPE = 0x00400000;
  const MASK = 0x0040ffff;
  if (n & DISABLE) return undefined; // operand disable flag: behaves as a NOP
  if (version < 2) return `CSV needs transaction version ≥ 2, got ${version}`;
  if (sequence & DISABLE) return 'CSV: input sequence has the disable flag set';
  const want = n & MASK;
  const have = sequence & MASK;
  if ((want & TYPE) !== (have & TYPE)) return 'CSV: sequence lock type (blocks vs time) differs';
  if ((have & 0xffff) < (want & 0xffff)) return `CSV: relative lock ${want & 0xffff} not met by sequence ${have & 0xffff}`;
  return undefined;
}
