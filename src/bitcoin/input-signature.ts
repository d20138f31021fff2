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
import { hasHighS, isCompressedPubkey, isStrictDerSignature, isStrictPubkey, verifyEcdsaDer } from './ecdsa.js';
import { formatSighash, isDefinedEcdsaSighash, SIGHASH_SINGLE } from './sighash.js';
import {
  checkSequenceVerify, parseSchnorrSignature, parseSimpleTapscript, splitTaprootWitness,
  TAPSCRIPT_LEAF_VERSION, verifyControlBlock, verifySchnorr,
} from './taproot.js';
import { toTransaction, type Prevout } from './transaction.js';
import { TxDigests } from './tx-digests.js';
import { SCRIPT_ERROR_TEXT, type ScriptError } from './script-error.js';

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
      /**
       * Bitcoin Core's `ScriptErrorString` for the failure under these rules (what its mempool
       * names in `mandatory-script-verify-flag-failed (…)`); absent for a spend this verifier
       * does not support (Core might accept it).
       */
      scriptError?: string;
    };

export type InputSignatureOk = Extract<InputSignatureResult, { ok: true }>;
export type InputSignatureFailure = Extract<InputSignatureResult, { ok: false }>;

type Sig = { hashType: number; pubkey: Uint8Array };
/** A failure names Core's script error too (`code`), or `undefined` for an unsupported spend. */
type Failure = { ok: false; error: string; code: ScriptError | undefined };
type Check = { ok: true; family: SpendFamily; sigs: Sig[] } | Failure;
const failed = (code: ScriptError | undefined, error: string): Failure => ({ ok: false, error, code });

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
  const fail = (detail: string, code?: ScriptError): InputSignatureResult => ({
    ok: false, input: index, error: `input ${index}: ${detail}`, detail, ...(code ? { scriptError: SCRIPT_ERROR_TEXT[code] } : {}),
  });
  let d: TxDigests;
  try {
    d = tx instanceof TxDigests ? tx : prepareTransaction(tx, prevouts);
  } catch (e) {
    return fail(`transaction does not parse (${(e as Error).message})`, 'UNKNOWN_ERROR');
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
    res = failed('UNKNOWN_ERROR', (e as Error).message);
  }
  if (!res.ok) return fail(res.error, res.code);
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
    const r = checkP2pkh(d, idx, s, scriptSig, rules);
    // Core runs the scripts first, then refuses a witness on a non-witness spend.
    if (witness.length) return failed(r.ok ? 'WITNESS_UNEXPECTED' : r.code, 'P2PKH input carries a witness');
    return r;
  }
  if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) {
    if (scriptSig.length) return failed('WITNESS_MALLEATED', 'native segwit input has a non-empty scriptSig');
    return checkP2wpkh(d, idx, s.subarray(2), prevout.amount, witness, rules);
  }
  if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) {
    if (scriptSig.length) return failed('WITNESS_MALLEATED', 'native segwit input has a non-empty scriptSig');
    return checkTaproot(d, idx, s.subarray(2), witness, rules);
  }
  return failed(undefined, 'unsupported prevout script (P2PKH, P2WPKH and P2TR only)');
}

/**
 * The ECDSA `<sig> <pubkey> OP_CHECKSIG` that ends P2PKH and P2WPKH, in Core's order
 * (`EvalChecksigPreTapscript`): the signature's encoding, the key's, then the curve check. A
 * failed check leaves false on the stack (EVAL_FALSE); policy's NULLFAIL names it first.
 */
function checkEcdsa(
  sig: Uint8Array, pubkey: Uint8Array, rules: 'standard' | 'consensus', segwit: boolean, digest: (hashType: number) => Uint8Array,
): { ok: true; hashType: number } | Failure {
  const standard = rules === 'standard';
  const falseOnStack = (error: string): Failure => failed(standard && sig.length > 0 ? 'SIG_NULLFAIL' : 'EVAL_FALSE', error);
  if (sig.length === 0) return falseOnStack('empty signature');
  if (!isStrictDerSignature(sig)) return failed('SIG_DER', 'signature is not strict DER (BIP-66)');
  if (standard && hasHighS(sig.subarray(0, -1))) return failed('SIG_HIGH_S', 'signature has high S (BIP-146 LOW_S)');
  const hashType = sig[sig.length - 1]!;
  if (standard && !isDefinedEcdsaSighash(hashType)) return failed('SIG_HASHTYPE', `undefined sighash ${formatSighash(hashType)}`);
  if (standard && !isStrictPubkey(pubkey)) return failed('PUBKEYTYPE', 'pubkey encoding is not standard');
  if (standard && segwit && !isCompressedPubkey(pubkey)) return failed('WITNESS_PUBKEYTYPE', 'P2WPKH pubkey must be compressed (BIP-143 policy)');
  const v = verifyEcdsaDer(sig.subarray(0, -1), digest(hashType), pubkey, standard);
  if (v.ok) return { ok: true, hashType };
  return v.highS ? failed('SIG_HIGH_S', v.error) : falseOnStack(v.error);
}

function checkP2pkh(d: TxDigests, idx: number, script: Uint8Array, scriptSig: Uint8Array, rules: 'standard' | 'consensus'): Check {
  let ops: ScriptType;
  try {
    ops = Script.decode(scriptSig);
  } catch {
    return failed('BAD_OPCODE', 'scriptSig does not parse');
  }
  if (ops.some((op) => !(op instanceof Uint8Array))) return failed(rules === 'standard' ? 'SIG_PUSHONLY' : 'UNKNOWN_ERROR', 'P2PKH scriptSig must be <sig> <pubkey>');
  // MINIMALDATA (policy): each push must use its shortest encoding, which is how scure re-encodes.
  if (rules === 'standard' && !equalBytes(Script.encode(ops), scriptSig)) return failed('MINIMALDATA', 'scriptSig pushes are not minimal');
  // OP_DUP OP_HASH160 <h> OP_EQUALVERIFY OP_CHECKSIG on the pushed items, in Core's order.
  const [sig, pubkey] = ops.slice(-2) as Uint8Array[];
  if (ops.length === 0) return failed('INVALID_STACK_OPERATION', 'P2PKH scriptSig must be <sig> <pubkey>');
  const top = ops[ops.length - 1] as Uint8Array;
  if (!equalBytes(hash160(top), script.subarray(3, 23))) return failed('EQUALVERIFY', 'pubkey does not match the P2PKH hash');
  if (ops.length === 1 || !sig || !pubkey) return failed('INVALID_STACK_OPERATION', 'P2PKH scriptSig must be <sig> <pubkey>');
  // Legacy sighash; scriptCode is the prevout script (it holds no OP_CODESEPARATOR or signature).
  const r = checkEcdsa(sig, pubkey, rules, false, (hashType) => d.legacy(idx, script, hashType));
  if (!r.ok) return r;
  // CLEANSTACK is policy: extra items under the signature leave more than the result.
  if (ops.length !== 2) return failed(rules === 'standard' ? 'CLEANSTACK' : undefined, 'P2PKH scriptSig must be <sig> <pubkey>');
  return { ok: true, family: 'p2pkh', sigs: [{ hashType: r.hashType, pubkey }] };
}

function checkP2wpkh(
  d: TxDigests, idx: number, program: Uint8Array, amount: bigint, witness: Uint8Array[], rules: 'standard' | 'consensus',
): Check {
  if (witness.length !== 2) return failed('WITNESS_PROGRAM_MISMATCH', `P2WPKH witness must have 2 items, got ${witness.length}`);
  const [sig, pubkey] = witness as [Uint8Array, Uint8Array];
  if (!equalBytes(hash160(pubkey), program)) return failed('EQUALVERIFY', 'pubkey does not match the P2WPKH program');
  // BIP-143: the scriptCode of a P2WPKH input is the P2PKH script of the same key hash.
  const scriptCode = new Uint8Array([0x76, 0xa9, 0x14, ...program, 0x88, 0xac]);
  const r = checkEcdsa(sig, pubkey, rules, true, (hashType) => d.witnessV0(idx, scriptCode, hashType, amount));
  return r.ok ? { ok: true, family: 'p2wpkh', sigs: [{ hashType: r.hashType, pubkey }] } : r;
}

/** Core's `CheckSchnorrSignature`: size, explicit hash type, digest (SINGLE needs its output), curve. */
function checkSchnorr(
  d: TxDigests, idx: number, raw: Uint8Array, key: Uint8Array, leaf: Uint8Array | undefined, annex: Uint8Array | undefined,
): { ok: true; hashType: number } | Failure {
  const sig = parseSchnorrSignature(raw);
  if ('error' in sig) return failed(raw.length === 64 || raw.length === 65 ? 'SCHNORR_SIG_HASHTYPE' : 'SCHNORR_SIG_SIZE', sig.error);
  // BIP-341: SIGHASH_SINGLE without a matching output has no digest: the signature is invalid.
  if ((sig.hashType & 0x03) === SIGHASH_SINGLE && idx >= d.outputsLength) return failed('SCHNORR_SIG_HASHTYPE', 'sighash SINGLE without a matching output');
  const msg = d.witnessV1(idx, sig.hashType, leaf, annex, TAPSCRIPT_LEAF_VERSION);
  if (!verifySchnorr(sig.sig, msg, key)) return failed('SCHNORR_SIG', leaf ? 'does not verify (script path)' : 'schnorr signature does not verify (key path)');
  return { ok: true, hashType: sig.hashType };
}

function checkTaproot(d: TxDigests, idx: number, outputKey: Uint8Array, witness: Uint8Array[], rules: 'standard' | 'consensus'): Check {
  const w = splitTaprootWitness(witness);
  if ('error' in w) return failed('WITNESS_PROGRAM_WITNESS_EMPTY', w.error);
  // BIP-341 reserves the annex; Bitcoin Core's policy refuses to relay any witness carrying one
  // (`IsWitnessStandard`, before any script runs: the devnet's policy names it first).
  if (rules === 'standard' && w.annex) return failed(undefined, 'taproot annex is non-standard (not relayed)');
  if (w.kind === 'key') {
    const r = checkSchnorr(d, idx, w.signature, outputKey, undefined, w.annex);
    return r.ok ? { ok: true, family: 'p2tr-key', sigs: [{ hashType: r.hashType, pubkey: outputKey }] } : r;
  }
  const cb = verifyControlBlock(w.script, w.control, outputKey);
  if (!cb.ok) return failed(/invalid length/.test(cb.error) ? 'TAPROOT_WRONG_CONTROL_SIZE' : 'WITNESS_PROGRAM_MISMATCH', cb.error);
  // An unknown leaf version is anyone-can-spend by consensus, refused by policy.
  if (cb.leafVersion !== TAPSCRIPT_LEAF_VERSION) {
    return failed(rules === 'standard' ? 'DISCOURAGE_UPGRADABLE_TAPROOT_VERSION' : undefined, `unsupported leaf version ${formatSighash(cb.leafVersion)}`);
  }
  const leaf = parseSimpleTapscript(w.script);
  if (!leaf) return failed(undefined, 'unsupported tapscript leaf');
  if (leaf.csv !== undefined) {
    const csvErr = checkSequenceVerify(leaf.csv, d.sequences[idx]!, d.version);
    if (csvErr) return failed('UNSATISFIED_LOCKTIME', csvErr);
  }
  // The leaf runs `<k1> OP_CHECKSIGVERIFY … <kn> OP_CHECKSIG`: witness item j is consumed by key
  // (n-1-j), the first key popping the top of the stack; one signature per key, or the final
  // stack would not be clean (BIP-342).
  const n = leaf.keys.length;
  const sigs: Sig[] = [];
  for (let k = 0; k < n; k++) {
    const j = w.stack.length - 1 - k;
    if (j < 0) return failed('INVALID_STACK_OPERATION', `tapscript needs ${n} signatures, witness has ${w.stack.length}`);
    const key = leaf.keys[k]!;
    const raw = w.stack[j]!;
    // An empty signature is a failed check, not an error: OP_CHECKSIGVERIFY stops, the final
    // OP_CHECKSIG leaves false.
    if (raw.length === 0) return failed(k < n - 1 ? 'CHECKSIGVERIFY' : w.stack.length > n ? 'CLEANSTACK' : 'EVAL_FALSE', `signature ${j} is empty`);
    const r = checkSchnorr(d, idx, raw, key, w.script, w.annex);
    if (!r.ok) return { ...r, error: r.code === 'SCHNORR_SIG' ? `signature ${j} ${r.error}` : `signature ${j}: ${r.error}` };
    sigs.unshift({ hashType: r.hashType, pubkey: key });
  }
  if (w.stack.length !== n) return failed('CLEANSTACK', `tapscript needs ${n} signatures, witness has ${w.stack.length}`);
  return { ok: true, family: 'p2tr-script', sigs };
}
