/**
 * Transaction weight and virtual size (BIP-141: weight = 3 × base size + total size,
 * vsize = ⌈weight / 4⌉), estimated before signing and computed exactly after.
 *
 * Estimates are upper bounds so a fee computed from them never falls short: ECDSA signatures
 * are counted at their 73-byte maximum (72-byte DER with high R + hash type), taproot signatures
 * at 64 bytes for SIGHASH_DEFAULT or 65 with an explicit hash type (BIP-341). Bitcoin Core's
 * sigop-adjusted vsize only differs for transactions with unusually many sigops per byte, which
 * the market's layouts never have.
 */
import type { Transaction } from '@scure/btc-signer';
import type { AddressFamily } from './address.js';
import { toTransaction } from './transaction.js';

/** How an input will be spent. */
export type InputSpend =
  | 'p2pkh' // scriptSig <sig> <33-byte key>
  | 'p2wpkh' // witness [sig, 33-byte key]
  | 'p2tr-key' // witness [64-byte sig] (SIGHASH_DEFAULT)
  | 'p2tr-key-explicit' // witness [65-byte sig] (explicit hash type, e.g. 0x83 listings)
  | 'p2tr-2of2-leaf' // the escrow leaf <k1> CHECKSIGVERIFY <k2> CHECKSIG, two 65-byte sigs, 2-leaf tree
  | { tapscript: TapscriptSpend };

export interface TapscriptSpend {
  leafScriptLength: number;
  signatures: number;
  /** Merkle path length in the control block (0 for a single-leaf tree). */
  controlBlockDepth: number;
  /** True when signatures carry an explicit hash type (65 bytes). Default true (upper bound). */
  explicitSighash?: boolean;
}

const compactSizeLength = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9);

const ECDSA_SIG_MAX = 73; // 72-byte DER (BIP-66 maximum for secp256k1) + hash type byte
const COMPRESSED_KEY = 33;
/** Length of `<32-byte key> OP_CHECKSIGVERIFY <32-byte key> OP_CHECKSIG`. */
export const ESCROW_LEAF_LENGTH = 2 * (1 + 32 + 1);

/** Size of the outpoint, scriptSig and sequence of an input (its non-witness bytes). */
function baseInputSize(scriptSigLength: number): number {
  return 36 + compactSizeLength(scriptSigLength) + scriptSigLength + 4;
}

/** Witness bytes of a tapscript spend: stack count, signatures, leaf script, control block. */
function tapscriptWitnessSize(t: TapscriptSpend): number {
  const sig = 1 + (t.explicitSighash === false ? 64 : 65);
  const control = 33 + 32 * t.controlBlockDepth;
  const items = t.signatures + 2;
  return compactSizeLength(items) + t.signatures * sig
    + compactSizeLength(t.leafScriptLength) + t.leafScriptLength + compactSizeLength(control) + control;
}

/** Weight of one input, split into its non-witness size (×4) and witness size (×1). */
export function inputWeight(spend: InputSpend): { weight: number; hasWitness: boolean } {
  if (spend === 'p2pkh') {
    const scriptSig = 1 + ECDSA_SIG_MAX + 1 + COMPRESSED_KEY;
    return { weight: 4 * baseInputSize(scriptSig), hasWitness: false };
  }
  const base = 4 * baseInputSize(0);
  switch (spend) {
    case 'p2wpkh': return { weight: base + 1 + (1 + ECDSA_SIG_MAX) + (1 + COMPRESSED_KEY), hasWitness: true };
    case 'p2tr-key': return { weight: base + 1 + 1 + 64, hasWitness: true };
    case 'p2tr-key-explicit': return { weight: base + 1 + 1 + 65, hasWitness: true };
    case 'p2tr-2of2-leaf':
      return { weight: base + tapscriptWitnessSize({ leafScriptLength: ESCROW_LEAF_LENGTH, signatures: 2, controlBlockDepth: 1 }), hasWitness: true };
    default: return { weight: base + tapscriptWitnessSize(spend.tapscript), hasWitness: true };
  }
}

const FAMILY_SCRIPT_LENGTH: Record<AddressFamily, number> = { p2pkh: 25, p2sh: 23, p2wpkh: 22, p2wsh: 34, p2tr: 34 };

/** Weight of one output paying `script` (or a script of `family`): 4 × (8 + CompactSize + script). */
export function outputWeight(output: Uint8Array | AddressFamily): number {
  const len = typeof output === 'string' ? FAMILY_SCRIPT_LENGTH[output] : output.length;
  return 4 * (8 + compactSizeLength(len) + len);
}

/**
 * Estimated weight and vsize of a transaction with these inputs and outputs. When any input has
 * a witness, the segwit marker and flag (2 WU) and one empty witness count (1 WU) per
 * non-witness input are added (BIP-144 serialization).
 */
export function estimateSize(inputs: readonly InputSpend[], outputs: readonly (Uint8Array | AddressFamily)[]): { weight: number; vsize: number } {
  let weight = 4 * (4 + 4 + compactSizeLength(inputs.length) + compactSizeLength(outputs.length)); // version, locktime, counts
  const ins = inputs.map(inputWeight);
  for (const i of ins) weight += i.weight;
  if (ins.some((i) => i.hasWitness)) weight += 2 + ins.filter((i) => !i.hasWitness).length;
  for (const o of outputs) weight += outputWeight(o);
  return { weight, vsize: Math.ceil(weight / 4) };
}

/** Exact weight and vsize of a (finalized) transaction, from its serializations. */
export function transactionSize(tx: Transaction | Uint8Array): { weight: number; vsize: number } {
  const t = toTransaction(tx);
  const base = t.toBytes(true, false).length;
  const total = t.toBytes(true, true).length;
  const weight = 3 * base + total;
  return { weight, vsize: Math.ceil(weight / 4) };
}
