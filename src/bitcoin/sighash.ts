/**
 * Sighash type constants and the rules about which hash-type bytes are valid where.
 *
 * Legacy (pre-segwit) and BIP-143 (segwit v0) signatures end with one hash-type byte. Consensus
 * accepts any byte there (the base type is `byte & 0x1f`, ANYONECANPAY is bit 0x80), but Bitcoin
 * Core's standardness rule SCRIPT_VERIFY_STRICTENC only relays the six defined values, which is
 * what `isDefinedEcdsaSighash` checks.
 *
 * BIP-341 (taproot) is stricter at consensus level: a 64-byte signature means SIGHASH_DEFAULT
 * (0x00, which commits like ALL), a 65-byte signature carries an explicit type that must be one of
 * 0x01, 0x02, 0x03, 0x81, 0x82, 0x83 — an explicit 0x00 is invalid.
 */

export const SIGHASH_DEFAULT = 0x00;
export const SIGHASH_ALL = 0x01;
export const SIGHASH_NONE = 0x02;
export const SIGHASH_SINGLE = 0x03;
export const SIGHASH_ANYONECANPAY = 0x80;
export const SIGHASH_ALL_ANYONECANPAY = 0x81;
export const SIGHASH_NONE_ANYONECANPAY = 0x82;
export const SIGHASH_SINGLE_ANYONECANPAY = 0x83;

const DEFINED: readonly number[] = [0x01, 0x02, 0x03, 0x81, 0x82, 0x83];

/** True for the six hash types STRICTENC (policy) accepts on ECDSA signatures. */
export function isDefinedEcdsaSighash(hashType: number): boolean {
  return DEFINED.includes(hashType);
}

/**
 * True for an explicit hash type allowed in a 65-byte BIP-341 signature (consensus).
 * 0x00 is not allowed explicitly: DEFAULT is only expressed by omitting the byte.
 */
export function isValidTaprootExplicitSighash(hashType: number): boolean {
  return DEFINED.includes(hashType);
}

/** `0x83` style, the form used in error messages across the codebase. */
export function formatSighash(hashType: number): string {
  return '0x' + hashType.toString(16).padStart(2, '0');
}

/** Human name, e.g. `SINGLE|ANYONECANPAY`; undefined types print as hex. */
export function sighashName(hashType: number): string {
  if (hashType === SIGHASH_DEFAULT) return 'DEFAULT';
  const base = ({ 1: 'ALL', 2: 'NONE', 3: 'SINGLE' } as Record<number, string>)[hashType & 0x1f];
  if (base === undefined || (hashType & 0x60) !== 0) return formatSighash(hashType);
  return hashType & SIGHASH_ANYONECANPAY ? `${base}|ANYONECANPAY` : base;
}
