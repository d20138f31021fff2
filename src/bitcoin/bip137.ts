/**
 * Legacy recoverable message signatures: Bitcoin Core's `signmessage` format and its BIP-137
 * extension for segwit addresses.
 *
 * The signed hash is double-SHA256 of `CompactSize(24) ‖ "Bitcoin Signed Message:\n" ‖
 * CompactSize(len) ‖ message`. The signature is 65 bytes: a header byte, then r and s (32 bytes
 * each). The header says how the signer derived the address from the recovered key (BIP-137):
 *   27–30  P2PKH, uncompressed key       31–34  P2PKH, compressed key
 *   35–38  P2SH-P2WPKH (compressed)      39–42  P2WPKH (compressed)
 * and (header − 27) mod 4 is the ECDSA recovery id.
 *
 * BIP-137 cannot express taproot (a tweaked x-only key is not a recoverable ECDSA key).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { equalBytes } from '@noble/curves/utils.js';
import { CompactSize } from '@scure/btc-signer/script.js';
import { hash160 } from '@scure/btc-signer/utils.js';

const MAGIC = new TextEncoder().encode('Bitcoin Signed Message:\n');

/** The digest a legacy / BIP-137 signature signs. */
export function bitcoinMessageHash(message: string | Uint8Array): Uint8Array {
  const m = typeof message === 'string' ? new TextEncoder().encode(message) : message;
  const pre = new Uint8Array([
    ...CompactSize.encode(BigInt(MAGIC.length)), ...MAGIC, ...CompactSize.encode(BigInt(m.length)), ...m,
  ]);
  return sha256(sha256(pre));
}

export type Bip137HeaderKind = 'p2pkh-uncompressed' | 'p2pkh-compressed' | 'p2sh-p2wpkh' | 'p2wpkh';

/** Header byte → how the address is derived (BIP-137 table). */
export function bip137HeaderKind(header: number): Bip137HeaderKind | undefined {
  if (header >= 27 && header <= 30) return 'p2pkh-uncompressed';
  if (header >= 31 && header <= 34) return 'p2pkh-compressed';
  if (header >= 35 && header <= 38) return 'p2sh-p2wpkh';
  if (header >= 39 && header <= 42) return 'p2wpkh';
  return undefined;
}

export type Bip137Recovery =
  | { ok: true; kind: Bip137HeaderKind; pubkey: Uint8Array }
  | { ok: false; error: string };

/**
 * Recover the signer's public key from a 65-byte recoverable signature. The key is returned in
 * the encoding its header implies (65 bytes for 27–30, 33 bytes otherwise).
 * High-S is accepted: recovery needs no malleability rule, and Core's `RecoverCompact` takes it.
 */
export function recoverBip137(message: string | Uint8Array, sig: Uint8Array): Bip137Recovery {
  if (sig.length !== 65) return { ok: false, error: `recoverable signature must be 65 bytes, got ${sig.length}` };
  const header = sig[0]!;
  const kind = bip137HeaderKind(header);
  if (!kind) return { ok: false, error: `invalid recoverable signature header ${header}` };
  try {
    const point = secp256k1.Signature.fromBytes(sig.subarray(1), 'compact')
      .addRecoveryBit((header - 27) & 3)
      .recoverPublicKey(bitcoinMessageHash(message));
    return { ok: true, kind, pubkey: point.toBytes(kind !== 'p2pkh-uncompressed') };
  } catch {
    return { ok: false, error: 'no public key can be recovered from the signature' };
  }
}

/**
 * Does the recoverable signature prove control of the key behind `keyHash` (the 20-byte hash of
 * a P2PKH or P2WPKH address)? `accept` lists the header kinds allowed for that address.
 */
export function verifyRecoverable(
  message: string | Uint8Array,
  sig: Uint8Array,
  keyHash: Uint8Array,
  accept: readonly Bip137HeaderKind[],
): { ok: true; kind: Bip137HeaderKind } | { ok: false; error: string; malformed: boolean } {
  const rec = recoverBip137(message, sig);
  if (!rec.ok) return { ok: false, error: rec.error, malformed: sig.length !== 65 || bip137HeaderKind(sig[0]!) === undefined };
  if (!accept.includes(rec.kind)) {
    return { ok: false, error: `signature header declares ${rec.kind}, not allowed for this address`, malformed: false };
  }
  if (!equalBytes(hash160(rec.pubkey), keyHash)) return { ok: false, error: 'recovered key does not match the address', malformed: false };
  return { ok: true, kind: rec.kind };
}
