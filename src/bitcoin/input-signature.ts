/**
 * Verify the signature(s) of one input of a transaction, given every prevout it spends.
 *
 * Supported spends (the families the market signs with, plus its escrow leaves):
 * - P2PKH: scriptSig `<sig> <pubkey>`, legacy sighash (Bitcoin Core `SignatureHash`).
 * - P2WPKH: witness `[sig, pubkey]`, BIP-143 sighash with scriptCode `OP_DUP OP_HASH160 <h> OP_EQUALVERIFY OP_CHECKSIG`.
 * - P2TR key path: witness `[sig]` (+ optional annex), BIP-341 sighash, BIP-340 signature.
 * - P2TR script path with a simple BIP-342 leaf (see `parseSimpleTapscript`), control block checked.
 *
 * Every input of the transaction needs its prevout because BIP-341 commits to all amounts and
 * scripts. Outcomes are values, never throws: `{ok:false, input, error}` names the input and
 * the reason, e.g. `input 1: sighash 0x01, expected 0x83`.
 *
 * Rules: by default (`rules: 'standard'`) the standardness policy Bitcoin Core applies before
 * relaying is enforced on top of consensus — BIP-146 LOW_S, STRICTENC hash types and pubkeys,
 * compressed keys in segwit v0 — because the market must only accept transactions that relay.
 * A block validator can pass `rules: 'consensus'` to accept high-S and undefined ECDSA hash types.
 */
import { hash160 } from '@scure/btc-signer/utils.js';
import { Script, type ScriptType } from '@scure/btc-signer/script.js';
import { equalBytes } from '@noble/curves/utils.js';
import type { Transaction } from '@scure/btc-signer';
import { isCompressedPubkey, isStrictDerSignature, isStrictPubkey, verifyEcdsaDer } from './ecdsa.js';
import { formatSighash, isDefinedEcdsaSighash, SIGHASH_SINGLE } from './sighash.js';
import {
  checkSequenceVerify, parseSchnorrSignature, parseSimpleTapscript, splitTaprootWitness,
  TAPSCRIPT_LEAF_VERSION, verifyControlBlock, verifySchnorr,
} from './taproot.js';
import { toTransaction, type Prevout } from './transaction.js';
import { TxDigests } from './tx-digests.js';

export type { Prevout } from './transaction.js';

/** How the input was spent. */
export type SpendFamily = 'p2pkh' | 'p2wpkh' | 'p2tr-key' | 'p2tr-script';

export interface VerifyInputOptions {
  /** 'standard' (default): consensus + relay policy. 'consensus': consensus rules only. */
  rules?: 'standard' | 'consensus';
  /**
   * Hash types every signature of this input must use (e.g. `[0x83]` for a listing). For taproot,
   * 0x00 (DEFAULT, a 64-byte signature) and 0x01 are distinct values: list both if both are fine.
   */
  allowedSighashes?: readonly number[];
}

export type InputSignatureResult =
  | {
      ok: true;
      input: number;
      family: SpendFamily;
      /** One hash type per signature, in witness order (0x00 = taproot DEFAULT). */
      sighashTypes: number[];
      /** The key of each signature, same order: 33/65-byte ECDSA keys or 32-byte x-only keys. */
      pubkeys: Uint8Array[];
    }
  | {
      ok: false;
      input: number;
      /** `input 1: sighash 0x01, expected 0x83`: names the input, ready for a log or an error body. */
      error: string;
      /** The same without the `input N: ` prefix, for callers that add their own context. */
      detail: string;
    };

export type InputSignatureOk = Extract<InputSignatureResult, { ok: true }>;
export type InputSignatureFailure = Extract<InputSignatureResult, { ok: false }>;

type Sig = { hashType: number; pubkey: Uint8Array };
type Check = { ok: true; family: SpendFamily; sigs: Sig[] } | { ok: false; error: string };

/** What input `index` carries to unlock its prevout; by default the transaction's own fields. */
export interface InputSpend {
  scriptSig: Uint8Array;
  witness: Uint8Array[];
}

/**
 * Parse `tx` once and prepare the digests its inputs share (`TxDigests`), for several
 * `verifyInputSignature` calls on one transaction. Throws when the bytes do not parse.
 */
export function prepareTransaction(tx: Transaction | Uint8Array, prevouts: readonly Prevout[]): TxDigests {
  return new TxDigests(toTransaction(tx), prevouts);
}

/**
 * Verify input `index` of `tx` (a scure Transaction, raw bytes, or a prepared `TxDigests`, whose
 * own prevouts are then used). `prevouts[k]` is the output spent by input k, for every input.
 * `spend` overrides the input's scriptSig and witness (a PSBT's partial signatures).
 */
export function verifyInputSignature(
  tx: Transaction | Uint8Array | TxDigests,
  index: number,
  prevouts: readonly Prevout[],
  options: VerifyInputOptions = {},
  spend?: InputSpend,
): InputSignatureResult {
  const fail = (detail: string): InputSignatureResult => ({ ok: false, input: index, error: `input ${index}: ${detail}`, detail });
  let d: TxDigests;
  try {
    d = tx instanceof TxDigests ? tx : prepareTransaction(tx, prevouts);
  } catch (e) {
    return fail(`transaction does not parse (${(e as Error).message})`);
  }
  if (!Number.isInteger(index) || index < 0 || index >= d.inputsLength) return fail('no such input');
  if (d.prevouts.length !== d.inputsLength) {
    return fail(`expected ${d.inputsLength} prevouts, got ${d.prevouts.length}`);
  }
  let res: Check;
  try {
    res = checkInput(d, index, spend ?? ownSpend(d.tx, index), options.rules ?? 'standard');
  } catch (e) {
    // scure throws on malformed data (e.g. an out-of-range value); report it, never rethrow.
    res = { ok: false, error: (e as Error).message };
  }
  if (!res.ok) return fail(res.error);
  const allowed = options.allowedSighashes;
  if (allowed) {
    for (const s of res.sigs) {
      if (!allowed.includes(s.hashType)) {
        return fail(`sighash ${formatSighash(s.hashType)}, expected ${allowed.map(formatSighash).join(' or ')}`);
      }
    }
  }
  return {
    ok: true,
    input: index,
    family: res.family,
    sighashTypes: res.sigs.map((s) => s.hashType),
    pubkeys: res.sigs.map((s) => s.pubkey),
  };
}

/**
 * Verify every input (parse once, shared digests once, then each input in order). Returns the
 * first failure, or every input's result when all pass. Bytes that do not parse fail as input 0.
 */
export function verifyAllInputSignatures(
  tx: Transaction | Uint8Array,
  prevouts: readonly Prevout[],
  options: Omit<VerifyInputOptions, 'allowedSighashes'> = {},
): { ok: true; inputs: InputSignatureOk[] } | InputSignatureFailure {
  let d: TxDigests;
  try {
    d = prepareTransaction(tx, prevouts);
  } catch (e) {
    const detail = `transaction does not parse (${(e as Error).message})`;
    return { ok: false, input: 0, error: detail, detail };
  }
  const inputs: InputSignatureOk[] = [];
  for (let i = 0; i < d.inputsLength; i++) {
    const r = verifyInputSignature(d, i, prevouts, options);
    if (!r.ok) return r;
    inputs.push(r);
  }
  return { ok: true, inputs };
}

function ownSpend(tx: Transaction, idx: number): InputSpend {
  const input = tx.getInput(idx);
  return { scriptSig: input.finalScriptSig ?? new Uint8Array(), witness: input.finalScriptWitness ?? [] };
}

function checkInput(d: TxDigests, idx: number, { scriptSig, witness }: InputSpend, rules: 'standard' | 'consensus'): Check {
  const prevout = d.prevouts[idx]!;
  const s = prevout.script;
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) {
    if (witness.length) return { ok: false, error: 'P2PKH input carries a witness' };
    return checkP2pkh(d, idx, s, scriptSig, rules);
  }
  if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) {
    if (scriptSig.length) return { ok: false, error: 'native segwit input has a non-empty scriptSig' };
    return checkP2wpkh(d, idx, s.subarray(2), prevout.amount, witness, rules);
  }
  if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) {
    if (scriptSig.length) return { ok: false, error: 'native segwit input has a non-empty scriptSig' };
    return checkTaproot(d, idx, s.subarray(2), witness, rules);
  }
  return { ok: false, error: 'unsupported prevout script (P2PKH, P2WPKH and P2TR only)' };
}

function ecdsaHashType(sig: Uint8Array, rules: 'standard' | 'consensus'): number | string {
  if (sig.length === 0) return 'empty signature';
  if (!isStrictDerSignature(sig)) return 'signature is not strict DER (BIP-66)';
  const hashType = sig[sig.length - 1]!;
  if (rules === 'standard' && !isDefinedEcdsaSighash(hashType)) return `undefined sighash ${formatSighash(hashType)}`;
  return hashType;
}

function checkP2pkh(d: TxDigests, idx: number, script: Uint8Array, scriptSig: Uint8Array, rules: 'standard' | 'consensus'): Check {
  let ops: ScriptType;
  try {
    ops = Script.decode(scriptSig);
  } catch {
    return { ok: false, error: 'scriptSig does not parse' };
  }
  const [sig, pubkey] = ops;
  if (ops.length !== 2 || !(sig instanceof Uint8Array) || !(pubkey instanceof Uint8Array)) {
    return { ok: false, error: 'P2PKH scriptSig must be <sig> <pubkey>' };
  }
  // MINIMALDATA (policy): each push must use its shortest encoding, which is how scure re-encodes.
  if (rules === 'standard' && !equalBytes(Script.encode(ops), scriptSig)) return { ok: false, error: 'scriptSig pushes are not minimal' };
  if (!equalBytes(hash160(pubkey), script.subarray(3, 23))) return { ok: false, error: 'pubkey does not match the P2PKH hash' };
  if (rules === 'standard' && !isStrictPubkey(pubkey)) return { ok: false, error: 'pubkey encoding is not standard' };
  const hashType = ecdsaHashType(sig, rules);
  if (typeof hashType === 'string') return { ok: false, error: hashType };
  // Legacy sighash; scriptCode is the prevout script (it holds no OP_CODESEPARATOR or signature).
  const msg = d.legacy(idx, script, hashType);
  const v = verifyEcdsaDer(sig.subarray(0, -1), msg, pubkey, rules === 'standard');
  return v.ok ? { ok: true, family: 'p2pkh', sigs: [{ hashType, pubkey }] } : v;
}

function checkP2wpkh(
  d: TxDigests, idx: number, program: Uint8Array, amount: bigint, witness: Uint8Array[], rules: 'standard' | 'consensus',
): Check {
  if (witness.length !== 2) return { ok: false, error: `P2WPKH witness must have 2 items, got ${witness.length}` };
  const [sig, pubkey] = witness as [Uint8Array, Uint8Array];
  if (!equalBytes(hash160(pubkey), program)) return { ok: false, error: 'pubkey does not match the P2WPKH program' };
  if (rules === 'standard' && !isCompressedPubkey(pubkey)) return { ok: false, error: 'P2WPKH pubkey must be compressed (BIP-143 policy)' };
  const hashType = ecdsaHashType(sig, rules);
  if (typeof hashType === 'string') return { ok: false, error: hashType };
  // BIP-143: the scriptCode of a P2WPKH input is the P2PKH script of the same key hash.
  const scriptCode = new Uint8Array([0x76, 0xa9, 0x14, ...program, 0x88, 0xac]);
  const msg = d.witnessV0(idx, scriptCode, hashType, amount);
  const v = verifyEcdsaDer(sig.subarray(0, -1), msg, pubkey, rules === 'standard');
  return v.ok ? { ok: true, family: 'p2wpkh', sigs: [{ hashType, pubkey }] } : v;
}

function taprootMsg(d: TxDigests, idx: number, hashType: number, leaf?: Uint8Array, annex?: Uint8Array): Uint8Array | string {
  // BIP-341: SIGHASH_SINGLE without a matching output has no digest: the signature is invalid.
  if ((hashType & 0x03) === SIGHASH_SINGLE && idx >= d.outputsLength) return 'sighash SINGLE without a matching output';
  return d.witnessV1(idx, hashType, leaf, annex, TAPSCRIPT_LEAF_VERSION);
}

function checkTaproot(d: TxDigests, idx: number, outputKey: Uint8Array, witness: Uint8Array[], rules: 'standard' | 'consensus'): Check {
  const w = splitTaprootWitness(witness);
  if ('error' in w) return { ok: false, error: w.error };
  // BIP-341 reserves the annex; Bitcoin Core's policy refuses to relay any witness carrying one.
  if (rules === 'standard' && w.annex) return { ok: false, error: 'taproot annex is non-standard (not relayed)' };
  if (w.kind === 'key') {
    const sig = parseSchnorrSignature(w.signature);
    if ('error' in sig) return { ok: false, error: sig.error };
    const msg = taprootMsg(d, idx, sig.hashType, undefined, w.annex);
    if (typeof msg === 'string') return { ok: false, error: msg };
    if (!verifySchnorr(sig.sig, msg, outputKey)) return { ok: false, error: 'schnorr signature does not verify (key path)' };
    return { ok: true, family: 'p2tr-key', sigs: [{ hashType: sig.hashType, pubkey: outputKey }] };
  }
  const cb = verifyControlBlock(w.script, w.control, outputKey);
  if (!cb.ok) return cb;
  if (cb.leafVersion !== TAPSCRIPT_LEAF_VERSION) return { ok: false, error: `unsupported leaf version ${formatSighash(cb.leafVersion)}` };
  const leaf = parseSimpleTapscript(w.script);
  if (!leaf) return { ok: false, error: 'unsupported tapscript leaf' };
  if (leaf.csv !== undefined) {
    const csvErr = checkSequenceVerify(leaf.csv, d.sequences[idx]!, d.version);
    if (csvErr) return { ok: false, error: csvErr };
  }
  // One signature per key; exactly that many items, or the final stack would not be clean (BIP-342).
  if (w.stack.length !== leaf.keys.length) {
    return { ok: false, error: `tapscript needs ${leaf.keys.length} signatures, witness has ${w.stack.length}` };
  }
  const sigs: Sig[] = [];
  for (let j = 0; j < w.stack.length; j++) {
    // Witness item j is consumed by key (n-1-j): the first key pops the top of the stack.
    const key = leaf.keys[leaf.keys.length - 1 - j]!;
    const sig = parseSchnorrSignature(w.stack[j]!);
    if ('error' in sig) return { ok: false, error: `signature ${j}: ${sig.error}` };
    const msg = taprootMsg(d, idx, sig.hashType, w.script, w.annex);
    if (typeof msg === 'string') return { ok: false, error: `signature ${j}: ${msg}` };
    if (!verifySchnorr(sig.sig, msg, key)) return { ok: false, error: `signature ${j} does not verify (script path)` };
    sigs.push({ hashType: sig.hashType, pubkey: key });
  }
  return { ok: true, family: 'p2tr-script', sigs };
}
