/**
 * Message signatures a wallet of ours makes: BIP-322 simple (P2WPKH, P2TR) and BIP-137 (the
 * legacy recoverable format; the only one a P2PKH address has, and accepted for P2WPKH too).
 *
 * BIP-322 simple: `to_spend` (version 0, one input 00…00:0xFFFFFFFF with scriptSig
 * `OP_0 PUSH32[sha256_tag("BIP0322-signed-message", message)]`, one 0-sat output to the
 * address's script), then `to_sign` (version 0, spending to_spend:0 with sequence 0, one 0-sat
 * `OP_RETURN` output) signed as a normal input (ALL for P2WPKH, DEFAULT for P2TR key path); the
 * signature is the witness of its input, serialized and base64-encoded.
 */
import { base64 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { RawTx, RawWitness, Transaction } from '@scure/btc-signer';

export type AddressType = 'p2tr' | 'p2wpkh' | 'p2pkh';
export type MessageProtocol = 'bip322' | 'bip137';

const utf8 = (s: string) => new TextEncoder().encode(s);

function toSpendTxid(script: Uint8Array, message: string): Uint8Array {
  const hash = schnorr.utils.taggedHash('BIP0322-signed-message', utf8(message));
  const raw = RawTx.encode({
    version: 0,
    segwitFlag: false,
    inputs: [{ txid: new Uint8Array(32), index: 0xffffffff, sequence: 0, finalScriptSig: new Uint8Array([0x00, 0x20, ...hash]) }],
    outputs: [{ amount: 0n, script }],
    witnesses: [],
    lockTime: 0,
  });
  // The txid is the reversed double-SHA256 of the (witness-free) serialization.
  return sha256(sha256(raw)).reverse();
}

/** A BIP-322 simple signature (base64 of the witness) by `privateKey` for the address of `script`. */
export function signBip322Simple(privateKey: Uint8Array, type: 'p2tr' | 'p2wpkh', script: Uint8Array, message: string): string {
  const tx = new Transaction({ version: 0, allowUnknownOutputs: true, allowUnknownVersion: true });
  tx.addInput({
    txid: toSpendTxid(script, message),
    index: 0,
    sequence: 0,
    witnessUtxo: { script, amount: 0n },
    ...(type === 'p2tr' ? { tapInternalKey: schnorr.getPublicKey(privateKey) } : {}),
  });
  tx.addOutput({ script: new Uint8Array([0x6a]), amount: 0n });
  tx.signIdx(privateKey, 0, [type === 'p2tr' ? 0 : 1]);
  tx.finalizeIdx(0);
  return base64.encode(RawWitness.encode(tx.getInput(0).finalScriptWitness!));
}

function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return new Uint8Array([n]);
  if (n <= 0xffff) return new Uint8Array([0xfd, n & 0xff, n >> 8]);
  return new Uint8Array([0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24]);
}

/** double-SHA256 of `CompactSize ‖ "Bitcoin Signed Message:\n" ‖ CompactSize(len) ‖ message`. */
function bitcoinMessageHash(message: string): Uint8Array {
  const magic = utf8('Bitcoin Signed Message:\n');
  const m = utf8(message);
  return sha256(sha256(new Uint8Array([...compactSize(magic.length), ...magic, ...compactSize(m.length), ...m])));
}

/**
 * A BIP-137 signature (base64 of header ‖ r ‖ s): the header says how the address comes from the
 * recovered compressed key (31–34 P2PKH, 39–42 P2WPKH). Taproot has none (its key is tweaked).
 */
export function signBip137(privateKey: Uint8Array, type: 'p2pkh' | 'p2wpkh', message: string): string {
  // noble's 'recovered' format is the recovery id then r ‖ s.
  const sig = secp256k1.sign(bitcoinMessageHash(message), privateKey, { prehash: false, format: 'recovered' });
  const header = (type === 'p2pkh' ? 31 : 39) + sig[0]!;
  return base64.encode(new Uint8Array([header, ...sig.slice(1)]));
}
