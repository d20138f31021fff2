/**
 * Bitcoin Core's dust rule (`GetDustThreshold` in policy/policy.cpp): an output is dust when its
 * value is below what it would cost, at the dust relay fee (default 3000 sat/kvB = 3 sat/vB), to
 * create it and later spend it. The spend is assumed to be a typical input: 148 bytes for
 * non-witness outputs, 67 vbytes (32+4+1+107/4+4) for witness programs (BIP-141 discount).
 *
 * At 3 sat/vB: P2PKH 546, P2SH 540, P2WPKH 294, P2WSH 330, P2TR 330, P2A 240; OP_RETURN (provably
 * unspendable) has no dust limit.
 */
import type { AddressFamily } from './address.js';

/** Bitcoin Core's `DUST_RELAY_TX_FEE`, in sat per 1000 vbytes. */
export const DEFAULT_DUST_RELAY_FEE_SAT_PER_KVB = 3000;

/** The limits at the default dust relay fee, by family. */
export const DUST_LIMITS: Readonly<Record<AddressFamily, number>> = Object.freeze({
  p2pkh: 546, p2sh: 540, p2wpkh: 294, p2wsh: 330, p2tr: 330,
});

const MAX_SCRIPT_SIZE = 10_000;

function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/** `CScript::IsUnspendable`: starts with OP_RETURN, or is larger than the script size limit. */
export function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === 0x6a) || script.length > MAX_SCRIPT_SIZE;
}

/** `CScript::IsWitnessProgram` (BIP-141): a version opcode then one 2–40 byte direct push. */
export function isWitnessProgram(script: Uint8Array): boolean {
  if (script.length < 4 || script.length > 42) return false;
  const v = script[0]!;
  if (v !== 0x00 && (v < 0x51 || v > 0x60)) return false;
  return script[1]! + 2 === script.length;
}

/**
 * The smallest non-dust value of an output paying `script`, in sats (0 for unspendable
 * outputs). `feeRateSatPerKvB` is the node's `-dustrelayfee`.
 */
export function dustThreshold(script: Uint8Array, feeRateSatPerKvB = DEFAULT_DUST_RELAY_FEE_SAT_PER_KVB): number {
  if (isUnspendable(script)) return 0;
  let size = 8 + compactSizeLength(script.length) + script.length; // the output itself
  // The input that will spend it: outpoint 36 + scriptSig length 1 + sequence 4, plus either a
  // 107-byte scriptSig or a 107-byte witness counted at a quarter (integer division, as in Core).
  size += isWitnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  // CFeeRate::GetFee rounds up.
  return Math.ceil((feeRateSatPerKvB * size) / 1000);
}

/** True when `amount` sats to `script` would be refused as dust by Bitcoin Core's relay policy. */
export function isDust(amount: bigint | number, script: Uint8Array, feeRateSatPerKvB = DEFAULT_DUST_RELAY_FEE_SAT_PER_KVB): boolean {
  return BigInt(amount) < BigInt(dustThreshold(script, feeRateSatPerKvB));
}
