/**
 * The input-0 SIGHASH rule (Core's `gettxinfo.check_signatures_sighash_flag`, taproot support
 * on): a transaction carrying a message is parsed only if every signature flag Core can read
 * on input 0 is ALL (0x01) or ALL|ANYONECANPAY (0x81). Where Core looks:
 *   - every push of the scriptSig that is a DER signature plus one flag byte (P2PKH, P2MS);
 *   - a 2-item witness: item 0 as DER + flag (P2WPKH);
 *   - a 1-item or >2-item witness: item 0 only, as a 64-byte (flag ALL) or 65-byte Schnorr
 *     signature (taproot key path, or the first stack item of a script path).
 * No readable flag at all (e.g. a P2WSH multisig whose item 0 is the empty dummy) means the
 * whole message is dropped, exactly like a wrong flag.
 */
import { readScript } from './script-reader.js';

export const SIGHASH_ALL = 0x01;
export const SIGHASH_ALL_ANYONECANPAY = 0x81;

const FIELD_P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const CURVE_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** Core's loose `is_valid_der`: layout checks only (30 len 02 rlen r 02 slen s), r and s non-empty. */
export function isLooseDer(der: Uint8Array): boolean {
  if (der.length < 8 || der[0] !== 0x30) return false;
  if (der[1]! + 2 !== der.length) return false;
  if (der[2] !== 0x02) return false;
  const rlen = der[3]!;
  if (rlen === 0 || 4 + rlen >= der.length) return false;
  if (der[4 + rlen] !== 0x02) return false;
  const slen = der[5 + rlen];
  if (slen === undefined || slen === 0) return false;
  return der.length === 6 + rlen + slen;
}

function toBigInt(b: Uint8Array): bigint {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return n;
}

/** Core's `is_valid_schnorr`: 64 or 65 bytes with r < p and s < n (no curve check). */
export function isLooseSchnorr(sig: Uint8Array): boolean {
  if (sig.length !== 64 && sig.length !== 65) return false;
  return toBigInt(sig.subarray(0, 32)) < FIELD_P && toBigInt(sig.subarray(32, 64)) < CURVE_N;
}

function derFlag(item: Uint8Array): number | null {
  return item.length > 0 && isLooseDer(item.subarray(0, -1)) ? item[item.length - 1]! : null;
}

function schnorrFlag(item: Uint8Array): number | null {
  if (!isLooseSchnorr(item)) return null;
  return item.length === 65 ? item[64]! : SIGHASH_ALL;
}

/** Every flag Core reads on one input; null when the scriptSig does not tokenize (Core: DecodeError). */
export function collectSighashFlags(scriptSig: Uint8Array, witness: readonly Uint8Array[]): number[] | null {
  const flags: number[] = [];
  if (scriptSig.length > 0) {
    const items = readScript(scriptSig);
    if (!items) return null;
    for (const it of items) {
      const f = 'push' in it ? derFlag(it.push) : null;
      if (f !== null) flags.push(f);
    }
  }
  if (witness.length === 0) return flags;
  const f = witness.length === 2 ? derFlag(witness[0]!) : schnorrFlag(witness[0]!);
  if (f !== null) flags.push(f);
  return flags;
}

export type SighashRuleResult = { ok: true; flags: number[] } | { ok: false; reason: string };

/** Does input 0 let Core parse the transaction's message? */
export function checkInput0Sighash(scriptSig: Uint8Array, witness: readonly Uint8Array[]): SighashRuleResult {
  const flags = collectSighashFlags(scriptSig, witness);
  if (flags === null) return { ok: false, reason: 'input 0 scriptSig does not parse' };
  if (flags.length === 0) return { ok: false, reason: 'impossible to determine SIGHASH flag of input 0' };
  const bad = flags.find((f) => f !== SIGHASH_ALL && f !== SIGHASH_ALL_ANYONECANPAY);
  if (bad !== undefined) return { ok: false, reason: `invalid SIGHASH flag 0x${bad.toString(16).padStart(2, '0')} on input 0` };
  return { ok: true, flags };
}
