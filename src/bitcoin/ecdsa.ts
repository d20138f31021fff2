/**
 * ECDSA signature checks as Bitcoin Script performs them (OP_CHECKSIG for P2PKH and P2WPKH).
 *
 * - BIP-66 (consensus since 2015): signatures must be strict DER. noble's DER parser is lenient
 *   about some encodings BIP-66 forbids, so the exact `IsValidSignatureEncoding` rule runs first.
 * - BIP-146 LOW_S is a relay *policy* (SCRIPT_VERIFY_LOW_S), not consensus: a high-S signature is
 *   valid in a block but Bitcoin Core will not relay it. noble v2 rejects high-S by default; we
 *   pass `lowS` explicitly so callers choose: the market requires low-S (the transactions it
 *   accepts must relay), a block validator may pass `lowS: false`.
 * - Bitcoin signs the 32-byte sighash directly, so it is never hashed again (see `secp.ts`).
 * - The curve check runs on libsecp256k1 where it loads (`secp.ts`); the DER reading stays with
 *   noble so every backend refuses the same encodings with the same words.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { secpBackend } from './secp.js';

/**
 * BIP-66 strict DER check of a signature *including* its trailing hash-type byte
 * (the exact rule of Bitcoin Core's `IsValidSignatureEncoding`).
 */
export function isStrictDerSignature(sig: Uint8Array): boolean {
  const n = sig.length;
  if (n < 9 || n > 73) return false;
  if (sig[0] !== 0x30) return false; // compound
  if (sig[1] !== n - 3) return false; // length covers everything but the hash type
  const lenR = sig[3]!;
  if (5 + lenR >= n) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== n) return false;
  if (sig[2] !== 0x02 || lenR === 0) return false; // R is an integer, not empty
  if (sig[4]! & 0x80) return false; // R not negative
  if (lenR > 1 && sig[4] === 0x00 && !(sig[5]! & 0x80)) return false; // no needless padding
  if (sig[lenR + 4] !== 0x02 || lenS === 0) return false;
  if (sig[lenR + 6]! & 0x80) return false; // S not negative
  if (lenS > 1 && sig[lenR + 6] === 0x00 && !(sig[lenR + 7]! & 0x80)) return false;
  return true;
}

/**
 * Public key encoding Bitcoin Core accepts under STRICTENC (policy): compressed (33 bytes,
 * 0x02/0x03) or uncompressed (65 bytes, 0x04). Hybrid keys (0x06/0x07) are refused.
 */
export function isStrictPubkey(pubkey: Uint8Array): boolean {
  if (pubkey.length === 33) return pubkey[0] === 0x02 || pubkey[0] === 0x03;
  if (pubkey.length === 65) return pubkey[0] === 0x04;
  return false;
}

/** BIP-143 policy (WITNESS_PUBKEYTYPE): segwit v0 keys must be compressed. */
export function isCompressedPubkey(pubkey: Uint8Array): boolean {
  return pubkey.length === 33 && (pubkey[0] === 0x02 || pubkey[0] === 0x03);
}

/**
 * BIP-146: does this DER signature (without hash-type byte) carry a high S? False when it does not
 * parse as a signature at all (its curve check fails instead).
 */
export function hasHighS(derSig: Uint8Array): boolean {
  try {
    return secp256k1.Signature.fromBytes(derSig, 'der').hasHighS();
  } catch {
    return false;
  }
}

/** `highS`: refused by policy's LOW_S before any curve check (Core's `SIG_HIGH_S`). */
export type EcdsaCheck = { ok: true } | { ok: false; error: string; highS?: true };

/**
 * Verify a DER signature (without hash-type byte) over a 32-byte sighash.
 * @param lowS - require BIP-146 low-S (policy). Pass false to accept any S, as consensus does.
 */
export function verifyEcdsaDer(
  derSig: Uint8Array,
  sighash: Uint8Array,
  pubkey: Uint8Array,
  lowS: boolean,
): EcdsaCheck {
  let compact: Uint8Array;
  let highS: boolean;
  try {
    const sig = secp256k1.Signature.fromBytes(derSig, 'der');
    highS = sig.hasHighS();
    compact = sig.toBytes('compact');
  } catch {
    return { ok: false, error: 'signature is not valid DER' };
  }
  if (lowS && highS) return { ok: false, error: 'signature has high S (BIP-146 LOW_S)', highS: true };
  // Only the encodings noble reads: libsecp256k1 would also parse hybrid (0x06/0x07) keys.
  const valid = isStrictPubkey(pubkey) && secpBackend().ecdsa(compact, sighash, pubkey);
  return valid ? { ok: true } : { ok: false, error: 'ECDSA signature does not verify' };
}
