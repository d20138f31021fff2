/**
 * Verify a base64 message signature for an address: the session challenge of the API
 * ("Authentication" in the spec). BIP-322 is the default; BIP-137 only when declared.
 *
 * | address | accepted                                                                        |
 * |---------|---------------------------------------------------------------------------------|
 * | P2WPKH  | BIP-322 simple or full; BIP-137 (headers 31–34 or 39–42) when declared          |
 * | P2TR    | BIP-322 simple or full (key path; the market's own tapscript leaves in full)    |
 * | P2PKH   | classic 65-byte recoverable signature (headers 27–34, with or without the      |
 * |         | BIP-137 declaration); BIP-322 full; a two-item `[sig, pubkey]` stack as a proof |
 * | others  | refused: P2SH and P2WSH cannot authenticate here                                |
 *
 * P2PKH two-item stack: BIP-322 has no simple variant for P2PKH, but some signers send the
 * scriptSig items as a witness stack. The items are checked as the scriptSig of the BIP-322
 * `to_sign` (legacy sighash). Signers that reuse their segwit code path sign the BIP-143 digest
 * of the same `to_sign` with the P2PKH script as scriptCode; that is accepted too. Both digests
 * commit to `to_spend`, i.e. to this address's script and the message, so neither can be
 * replayed for another address or format.
 */
import { base64 } from '@scure/base';
import { Script } from '@scure/btc-signer/script.js';
import { hash160 } from '@scure/btc-signer/utils.js';
import { equalBytes } from '@noble/curves/utils.js';
import { decodeAddress } from './address.js';
import { verifyBip322, buildToSign, buildToSpend, decodeBip322Signature, verifyToSign } from './bip322.js';
import { bip137HeaderKind, verifyRecoverable } from './bip137.js';
import { isStrictDerSignature, verifyEcdsaDer } from './ecdsa.js';
import type { Network } from './networks.js';

export type MessageMethod = 'BIP-322' | 'BIP-137';
export type MessageFormat = 'simple' | 'full' | 'legacy_recoverable' | 'p2pkh_stack';

export interface VerifyMessageInput {
  address: string;
  message: string;
  signatureBase64: string;
  network: Network;
  /** What the signer declared. Absent means BIP-322 (the spec's default). */
  method?: MessageMethod;
}

export type VerifyMessageFailure = 'invalid_address' | 'unsupported_address' | 'malformed_signature' | 'invalid_signature';

export type VerifyMessageResult =
  | {
      ok: true;
      method: MessageMethod;
      format: MessageFormat;
      /** BIP-322 "valid at time T and age S" when the full variant sets time locks. */
      validAt?: { lockTime: number; sequence: number };
    }
  | { ok: false; reason: VerifyMessageFailure; detail: string };

const fail = (reason: VerifyMessageFailure, detail: string): VerifyMessageResult => ({ ok: false, reason, detail });

export function verifyMessage(input: VerifyMessageInput): VerifyMessageResult {
  const { address, message, signatureBase64: sig, network, method } = input;
  if (typeof sig !== 'string' || typeof message !== 'string') return fail('malformed_signature', 'signature and message must be strings');
  const addr = decodeAddress(address, network);
  if (!addr.ok) return fail('invalid_address', `not a valid ${network} address`);
  const recoverable = decodeRecoverable(sig);

  if (addr.family === 'p2pkh') {
    if (recoverable) {
      const r = verifyRecoverable(message, recoverable, addr.program, ['p2pkh-uncompressed', 'p2pkh-compressed']);
      return r.ok ? { ok: true, method: 'BIP-137', format: 'legacy_recoverable' } : fail('invalid_signature', r.error);
    }
    if (method === 'BIP-137') return fail('malformed_signature', 'BIP-137 signature must be 65 bytes with header 27–34');
    return verifyP2pkhBip322(addr.script, message, sig);
  }

  if (addr.family === 'p2wpkh' || addr.family === 'p2tr') {
    if (method === 'BIP-137') {
      if (addr.family === 'p2tr') return fail('unsupported_address', 'BIP-137 cannot sign for a taproot address');
      if (!recoverable) return fail('malformed_signature', 'BIP-137 signature must be 65 bytes with header 27–42');
      // 39–42 is BIP-137's P2WPKH header; 31–34 (compressed P2PKH) is what many wallets emit for
      // segwit keys. Either way the recovered key must hash to this address's program.
      const r = verifyRecoverable(message, recoverable, addr.program, ['p2pkh-compressed', 'p2wpkh']);
      return r.ok ? { ok: true, method: 'BIP-137', format: 'legacy_recoverable' } : fail('invalid_signature', r.error);
    }
    const r = verifyBip322(addr.script, message, sig);
    if (!r.ok) {
      // An undeclared recoverable signature is a protocol error the client can fix: say so.
      const hint = recoverable ? ' (a BIP-137 signature must be declared with verification.method "BIP-137")' : '';
      return fail(r.malformed && !recoverable ? 'malformed_signature' : 'invalid_signature', r.error + hint);
    }
    return bip322Ok(r.variant, r.lockTime, r.sequence);
  }
  return fail('unsupported_address', `${addr.family} addresses cannot sign messages here`);
}

function bip322Ok(variant: 'simple' | 'full', lockTime: number, sequence: number): VerifyMessageResult {
  const res: VerifyMessageResult = { ok: true, method: 'BIP-322', format: variant };
  return lockTime || sequence ? { ...res, validAt: { lockTime, sequence } } : res;
}

/** 65 bytes with a BIP-137 header, given as plain base64 (no BIP-322 prefix). */
function decodeRecoverable(sig: string): Uint8Array | undefined {
  try {
    const b = base64.decode(sig);
    return b.length === 65 && bip137HeaderKind(b[0]!) !== undefined ? b : undefined;
  } catch {
    return undefined;
  }
}

function verifyP2pkhBip322(script: Uint8Array, message: string, sig: string): VerifyMessageResult {
  const d = decodeBip322Signature(sig);
  if ('error' in d) return fail('malformed_signature', d.error);
  if (d.variant === 'pof') return fail('invalid_signature', 'proof-of-funds signatures are not supported');
  if (d.variant === 'full') {
    const r = verifyToSign(d.tx, script, message, 'full');
    return r.ok ? bip322Ok('full', r.lockTime, r.sequence) : fail('invalid_signature', r.error);
  }
  if (d.witness.length !== 2) return fail('invalid_signature', 'P2PKH stack proof must be [signature, pubkey]');
  const [s, pubkey] = d.witness as [Uint8Array, Uint8Array];
  const { txid } = buildToSpend(script, message);
  // 1) As the scriptSig of to_sign: the legacy digest, checked by the input verifier.
  const legacy = verifyToSign(buildToSign(txid, { scriptSig: Script.encode([s, pubkey]) }), script, message, 'simple');
  if (legacy.ok) return { ok: true, method: 'BIP-322', format: 'p2pkh_stack' };
  // 2) The BIP-143 digest of the same to_sign, scriptCode = the P2PKH script (segwit-style signers).
  const hashType = s[s.length - 1];
  if (hashType === 0x01 && isStrictDerSignature(s) && pubkey.length === 33) {
    if (equalBytes(hash160(pubkey), script.subarray(3, 23))) {
      const msg = buildToSign(txid).preimageWitnessV0(0, script, 0x01, 0n);
      if (verifyEcdsaDer(s.subarray(0, -1), msg, pubkey, true).ok) return { ok: true, method: 'BIP-322', format: 'p2pkh_stack' };
    }
  }
  return fail('invalid_signature', legacy.error);
}
