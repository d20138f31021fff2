/**
 * BIP-322 generic signed messages: the virtual `to_spend` / `to_sign` transactions, the variant
 * prefixes (`smp` simple, `ful` full, `pof` proof of funds), and verification of the simple and
 * full variants by running the real input verifier on `to_sign`.
 *
 * Rules applied (BIP-322 "Verification Process"):
 *  - message_hash = sha256_tag("BIP0322-signed-message", message) (BIP-340 tagged hash);
 *  - to_spend: version 0, locktime 0, one input 000…000:0xFFFFFFFF, sequence 0, scriptSig
 *    `OP_0 PUSH32[message_hash]`, one output of 0 sats paying the address's scriptPubKey;
 *  - to_sign: one input spending to_spend:0, one output of 0 sats to `OP_RETURN`; version 0,
 *    locktime 0 and sequence 0 for the simple variant, free for the full one (time locks);
 *  - signatures must be SIGHASH_ALL, or SIGHASH_DEFAULT where the output type has it (taproot);
 *  - LOW_S, STRICTENC, MINIMALDATA and the clean stack are enforced ('standard' rules);
 *  - version other than 0 or 2 is "inconclusive", reported here as a failure.
 * A signature without prefix is read as simple, as the BIP allows for pre-final implementations.
 * Proof of funds (`pof`) needs the UTXO set and is not supported: it is refused.
 */
import { base64, hex } from '@scure/base';
import { schnorr } from '@noble/curves/secp256k1.js';
import { equalBytes } from '@noble/curves/utils.js';
import { RawTx, RawWitness } from '@scure/btc-signer/script.js';
import { Transaction } from '@scure/btc-signer';
import { verifyInputSignature } from './input-signature.js';
import { READ_TX_OPTS } from './transaction.js';

export const BIP322_TAG = 'BIP0322-signed-message';

const utf8 = (m: string | Uint8Array): Uint8Array => (typeof m === 'string' ? new TextEncoder().encode(m) : m);

/** sha256_tag("BIP0322-signed-message", message): the message as is, no length prefix. */
export function bip322MessageHash(message: string | Uint8Array): Uint8Array {
  return schnorr.utils.taggedHash(BIP322_TAG, utf8(message));
}

/** The virtual to_spend transaction for `messageChallenge` (an output script) and `message`. */
export function buildToSpend(messageChallenge: Uint8Array, message: string | Uint8Array): { raw: Uint8Array; txid: string } {
  const raw = RawTx.encode({
    version: 0,
    segwitFlag: false,
    inputs: [{
      txid: new Uint8Array(32),
      index: 0xffffffff,
      sequence: 0,
      finalScriptSig: new Uint8Array([0x00, 0x20, ...bip322MessageHash(message)]), // OP_0 PUSH32[hash]
    }],
    outputs: [{ amount: 0n, script: messageChallenge }],
    witnesses: [],
    lockTime: 0,
  });
  return { raw, txid: Transaction.fromRaw(raw, READ_TX_OPTS).id };
}

const OP_RETURN_SCRIPT = new Uint8Array([0x6a]);

/** The simple-variant to_sign transaction carrying `witness` (and, for P2PKH, a scriptSig). */
export function buildToSign(
  toSpendTxid: string,
  opts: { witness?: Uint8Array[]; scriptSig?: Uint8Array } = {},
): Transaction {
  const hasWitness = (opts.witness?.length ?? 0) > 0;
  const raw = RawTx.encode({
    version: 0,
    segwitFlag: hasWitness,
    inputs: [{ txid: hex.decode(toSpendTxid), index: 0, sequence: 0, finalScriptSig: opts.scriptSig ?? new Uint8Array() }],
    outputs: [{ amount: 0n, script: OP_RETURN_SCRIPT }],
    witnesses: hasWitness ? [opts.witness!] : [],
    lockTime: 0,
  });
  return Transaction.fromRaw(raw, READ_TX_OPTS);
}

export type Bip322Decoded =
  | { variant: 'simple'; witness: Uint8Array[] }
  | { variant: 'full'; tx: Transaction }
  | { variant: 'pof'; psbt: Uint8Array };

/** Split the variant prefix and decode the payload; errors mean a malformed signature. */
export function decodeBip322Signature(signature: string): Bip322Decoded | { error: string } {
  const prefix = signature.slice(0, 3);
  const known = prefix === 'smp' || prefix === 'ful' || prefix === 'pof';
  const body = known ? signature.slice(3) : signature;
  if (body.length === 0) return { error: 'signature too short' };
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(body);
  } catch {
    return { error: 'error decoding signature as base64' };
  }
  if (bytes.length === 0) return { error: 'signature too short' };
  if (prefix === 'pof') return { variant: 'pof', psbt: bytes };
  if (prefix === 'ful') {
    try {
      return { variant: 'full', tx: Transaction.fromRaw(bytes, READ_TX_OPTS) };
    } catch {
      return { error: 'error parsing signature as full variant' };
    }
  }
  try {
    return { variant: 'simple', witness: RawWitness.decode(bytes) };
  } catch {
    return { error: 'error parsing signature as simple variant (witness stack)' };
  }
}

export type Bip322Result =
  | { ok: true; variant: 'simple' | 'full'; lockTime: number; sequence: number; sighashTypes: number[] }
  | { ok: false; malformed: boolean; error: string };

/**
 * Verify a to_sign transaction (from either variant) against the challenge and message:
 * structure per BIP-322, then the input's signature with `allowedSighashes` ALL (and DEFAULT
 * for taproot) under standard rules.
 */
export function verifyToSign(
  toSign: Transaction, messageChallenge: Uint8Array, message: string | Uint8Array, variant: 'simple' | 'full',
): Bip322Result {
  const toSpend = buildToSpend(messageChallenge, message);
  const bad = (error: string): Bip322Result => ({ ok: false, malformed: false, error: `invalid signature: ${error}` });
  if (toSign.inputsLength !== 1) return bad('to_sign must have exactly one input (proof of funds is not supported)');
  const input = toSign.getInput(0);
  if (input.index !== 0 || !input.txid || !equalBytes(input.txid, hex.decode(toSpend.txid))) {
    return bad('to_sign does not spend to_spend:0 (wrong message or address)');
  }
  if (toSign.outputsLength !== 1) return bad('to_sign must have exactly one output');
  const out = toSign.getOutput(0);
  if (out.amount !== 0n || !out.script || !equalBytes(out.script, OP_RETURN_SCRIPT)) return bad('to_sign output must be 0 sats to OP_RETURN');
  if (toSign.version !== 0 && toSign.version !== 2) return bad(`to_sign version ${toSign.version} is not 0 or 2 (inconclusive)`);
  const isTaproot = messageChallenge.length === 34 && messageChallenge[0] === 0x51 && messageChallenge[1] === 0x20;
  const r = verifyInputSignature(toSign, 0, [{ script: messageChallenge, amount: 0n }], {
    rules: 'standard',
    allowedSighashes: isTaproot ? [0x00, 0x01] : [0x01],
  });
  if (!r.ok) return bad(r.error);
  return { ok: true, variant, lockTime: toSign.lockTime, sequence: input.sequence ?? 0, sighashTypes: r.sighashTypes };
}

/**
 * Verify a BIP-322 signature (simple or full variant, base64 with optional prefix) for the
 * output script `messageChallenge`.
 */
export function verifyBip322(messageChallenge: Uint8Array, message: string | Uint8Array, signature: string): Bip322Result {
  const d = decodeBip322Signature(signature);
  if ('error' in d) return { ok: false, malformed: true, error: d.error };
  if (d.variant === 'pof') return { ok: false, malformed: false, error: 'proof-of-funds signatures are not supported' };
  if (d.variant === 'full') return verifyToSign(d.tx, messageChallenge, message, 'full');
  const { txid } = buildToSpend(messageChallenge, message);
  return verifyToSign(buildToSign(txid, { witness: d.witness }), messageChallenge, message, 'simple');
}

/**
 * Signs `message` for a P2WPKH or P2TR (BIP-86 key path) address with `privateKey`, simple
 * variant: the to_sign input's witness, base64. For the devnet's demo wallets (whose keys are
 * published) and tests; a user's wallet signs with its own software.
 */
export function signBip322Simple(privateKey: Uint8Array, script: Uint8Array, message: string, tapInternalKey?: Uint8Array): string {
  const toSpend = buildToSpend(script, message);
  const tx = new Transaction({ version: 0, lockTime: 0, allowUnknownOutputs: true });
  tx.addInput({ txid: toSpend.txid, index: 0, sequence: 0, witnessUtxo: { script, amount: 0n }, ...(tapInternalKey ? { tapInternalKey } : {}) });
  tx.addOutput({ script: OP_RETURN_SCRIPT, amount: 0n });
  tx.sign(privateKey);
  tx.finalize();
  return base64.encode(RawWitness.encode(tx.getInput(0).finalScriptWitness!));
}
