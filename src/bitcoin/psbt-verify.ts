/**
 * Verify a signed PSBT against what the market expects of each input: the sighash it must carry
 * and who must have signed it. Every signature is checked by rebuilding its digest (legacy,
 * BIP-143 or BIP-341) from the PSBT's `witnessUtxo` / `nonWitnessUtxo`, never trusted from the
 * PSBT's own `sighashType` field.
 *
 * Signatures are read from finalized fields (`finalScriptWitness`, `finalScriptSig`) or, for an
 * input not yet finalized, from partial ones (`partialSig`, `tapKeySig`, `tapScriptSig`).
 * Failures read `PSBT: input 1 sighash 0x01, expected 0x83`.
 *
 * Sighash expectations (spec "Signing sighashes"):
 *   'ALL'                  0x01 exactly (an explicit 65-byte signature on taproot)
 *   'DEFAULT'              taproot 0x00 (64-byte signature); for ECDSA inputs it means ALL 0x01
 *   'DEFAULT_OR_ALL'       taproot 0x00 or 0x01; ECDSA 0x01 (both commit to the whole transaction)
 *   'SINGLE|ANYONECANPAY'  0x83 (listings)
 */
import { hex } from '@scure/base';
import { equalBytes } from '@noble/curves/utils.js';
import { Script } from '@scure/btc-signer/script.js';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { hash160, taprootTweakPubkey } from '@scure/btc-signer/utils.js';
import type { Transaction } from '@scure/btc-signer';
import { decodeAddress } from './address.js';
import { verifyInputSignature, type SpendFamily } from './input-signature.js';
import type { Network } from './networks.js';
import { parsePsbt } from './psbt.js';
import { PsbtView } from './psbt-view.js';
import { formatSighash, SIGHASH_ANYONECANPAY } from './sighash.js';
import { parseSchnorrSignature, TAPSCRIPT_LEAF_VERSION, verifySchnorr } from './taproot.js';
import type { Prevout } from './transaction.js';
import { TxDigests } from './tx-digests.js';
import type { FinalFields } from './psbt-template.js';

export { extractFinalTransaction, extractWithFinals, finalizeAndExtract, compareToTemplate } from './psbt-template.js';
export type { FinalFields } from './psbt-template.js';

export type SighashExpectation = 'ALL' | 'DEFAULT' | 'DEFAULT_OR_ALL' | 'SINGLE|ANYONECANPAY';

/** Who must have signed: the address the prevout pays, or a public key (33-byte or x-only). */
export type SignerExpectation = { address: string; network: Network } | { pubkey: Uint8Array };

export interface PsbtInputExpectation {
  index: number;
  sighash: SighashExpectation;
  signer: SignerExpectation;
}

export type PsbtInputReport =
  | { input: number; ok: true; family: SpendFamily; sighashTypes: number[]; pubkeys: Uint8Array[]; finalized: boolean }
  | { input: number; ok: false; error: string };

export type PsbtVerifyResult =
  | { ok: true; inputs: Extract<PsbtInputReport, { ok: true }>[] }
  | { ok: false; error: string; inputs: PsbtInputReport[] };

const isTaprootScript = (s: Uint8Array) => s.length === 34 && s[0] === 0x51 && s[1] === 0x20;

/** The hash types an expectation allows for an input of the given kind. */
export function allowedSighashes(expect: SighashExpectation, taproot: boolean): number[] {
  switch (expect) {
    case 'ALL': return [0x01];
    case 'DEFAULT': return taproot ? [0x00] : [0x01];
    case 'DEFAULT_OR_ALL': return taproot ? [0x00, 0x01] : [0x01];
    case 'SINGLE|ANYONECANPAY': return [0x83];
  }
}

/**
 * Verify each expected input of `psbt` (hex, base64, bytes or a scure Transaction). The result
 * lists every expected input; `error` is the first failure. `view`: a view of the very
 * transaction `psbt` is, read already (then `psbt` itself is not read).
 */
export function verifyPsbt(
  psbt: string | Uint8Array | Transaction,
  expected: readonly PsbtInputExpectation[],
  options: { rules?: 'standard' | 'consensus'; finals?: ReadonlyMap<number, FinalFields>; view?: PsbtView } = {},
): PsbtVerifyResult {
  let view = options.view;
  if (!view) {
    const parsed = parsePsbt(psbt);
    if (!parsed.ok) return { ok: false, error: parsed.error, inputs: [] };
    view = new PsbtView(parsed.tx);
  }
  const { prevouts, errors } = view;
  // One set of shared digests for every input checked (signatures do not enter the digests).
  // BIP-143 and legacy digests never commit to other prevouts, BIP-341 ones do unless
  // ANYONECANPAY: unknown ones are placeholders here and only fatal for taproot non-ACP.
  let digests: TxDigests;
  try {
    digests = view.digests();
  } catch (e) {
    return { ok: false, error: `PSBT: ${(e as Error).message}`, inputs: [] };
  }
  const reports = expected.map((e) => verifyExpectedInput(digests, e, prevouts, errors, options.rules ?? 'standard', options.finals?.get(e.index)));
  const firstBad = reports.find((r) => !r.ok);
  if (firstBad && !firstBad.ok) return { ok: false, error: firstBad.error, inputs: reports };
  return { ok: true, inputs: reports as Extract<PsbtInputReport, { ok: true }>[] };
}

/**
 * `final`: the final fields that stand in for the input's own (a stored seller witness checked
 * against this transaction without merging it into the PSBT first; `extractWithFinals` then puts
 * the very same fields into the network transaction).
 */
function verifyExpectedInput(
  d: TxDigests, e: PsbtInputExpectation, prevouts: (Prevout | undefined)[], errors: (string | undefined)[],
  rules: 'standard' | 'consensus', final?: FinalFields,
): PsbtInputReport {
  const tx = d.tx;
  const i = e.index;
  const fail = (detail: string): PsbtInputReport => ({ input: i, ok: false, error: `PSBT: input ${i} ${detail}` });
  if (!Number.isInteger(i) || i < 0 || i >= tx.inputsLength) return fail('does not exist');
  const own = prevouts[i];
  if (!own) return fail(errors[i] ?? 'has no prevout');
  if ('address' in e.signer) {
    const d = decodeAddress(e.signer.address, e.signer.network);
    if (!d.ok) return fail('expected signer address is invalid');
    if (!equalBytes(d.script, own.script)) return fail(`spends an output not paid to ${e.signer.address}`);
  }
  const taproot = isTaprootScript(own.script);
  const allowed = allowedSighashes(e.sighash, taproot);
  // The input itself only when it is what gets checked (reading one copies it whole).
  const input: PsbtInput = final && !('pubkey' in e.signer) ? {} : tx.getInput(i);
  const fields: { finalScriptWitness?: Uint8Array[]; finalScriptSig?: Uint8Array } = final ?? input;
  const finalized = Boolean(fields.finalScriptWitness?.length || fields.finalScriptSig?.length);
  const missing = prevouts.findIndex((p) => p === undefined);

  if (!finalized && final) return fail('is not signed');
  if (!finalized && input.tapScriptSig?.length) return verifyTapScriptPartial(d, i, e, allowed, missing, fail);
  const witness = finalized ? undefined : partialWitness(input, own.script);
  if (!finalized && !witness) return fail('is not signed');
  const spend = {
    scriptSig: witness?.scriptSig ?? fields.finalScriptSig ?? new Uint8Array(),
    witness: witness?.witness ?? fields.finalScriptWitness ?? [],
  };
  const r = verifyInputSignature(d, i, d.prevouts, { rules }, spend);
  if (!r.ok) {
    if (taproot && missing >= 0) return fail(`${r.detail} (prevout of input ${missing} unknown: ${errors[missing]})`);
    return fail(r.detail);
  }
  const bad = r.sighashTypes.find((t) => !allowed.includes(t));
  if (bad !== undefined) return fail(`sighash ${formatSighash(bad)}, expected ${allowed.map(formatSighash).join(' or ')}`);
  if ('pubkey' in e.signer && !signerMatches(e.signer.pubkey, r.pubkeys, r.family, input.tapInternalKey, input.tapMerkleRoot)) {
    return fail(`not signed by ${hex.encode(e.signer.pubkey)}`);
  }
  return { input: i, ok: true, family: r.family, sighashTypes: r.sighashTypes, pubkeys: r.pubkeys, finalized };
}

type PsbtInput = Partial<ReturnType<Transaction['getInput']>>;

/**
 * The final fields of an input: its own when finalized, else what a finalizer builds from its
 * partial signature (P2PKH, P2WPKH, P2TR key path); undefined when it carries neither. Set on the
 * transaction, they are exactly what `verifyPsbt` then verifies and what is extracted, with no
 * second finalizer between the check and the bytes (and no key re-validated on the way).
 */
export function finalFields(input: PsbtInput, script: Uint8Array): { finalScriptWitness: Uint8Array[] } | { finalScriptSig: Uint8Array } | undefined {
  if (input.finalScriptWitness?.length) return { finalScriptWitness: input.finalScriptWitness };
  if (input.finalScriptSig?.length) return { finalScriptSig: input.finalScriptSig };
  const w = partialWitness(input, script);
  if (w?.witness) return { finalScriptWitness: w.witness };
  if (w?.scriptSig) return { finalScriptSig: w.scriptSig };
  return undefined;
}

/** The witness (or scriptSig) a finalizer would build from the partial signature fields. */
function partialWitness(input: PsbtInput, script: Uint8Array): { witness?: Uint8Array[]; scriptSig?: Uint8Array } | undefined {
  if (isTaprootScript(script)) return input.tapKeySig ? { witness: [input.tapKeySig] } : undefined;
  const sigs = input.partialSig ?? [];
  if (sigs.length === 0) return undefined;
  // Pick the signature whose key the script pays (P2WPKH program or P2PKH hash); the verifier
  // checks the hash again, so a wrong pick only turns into a clear error.
  const program = script.length === 25 ? script.subarray(3, 23) : script.subarray(2);
  const [pubkey, sig] = sigs.find(([pub]) => equalBytes(hash160(pub), program)) ?? sigs[0]!;
  if (script.length === 25) return { scriptSig: Script.encode([sig, pubkey]) };
  return { witness: [sig, pubkey] };
}

/** One leaf signature in `tapScriptSig` by the expected key (e.g. the bidder's escrow pre-signature). */
function verifyTapScriptPartial(
  d: TxDigests, i: number, e: PsbtInputExpectation, allowed: number[], missing: number,
  fail: (d: string) => PsbtInputReport,
): PsbtInputReport {
  const tx = d.tx;
  if (!('pubkey' in e.signer)) return fail('script-path signatures need a pubkey expectation');
  const want = xOnly(e.signer.pubkey);
  const input = tx.getInput(i);
  const entry = input.tapScriptSig!.find(([k]) => equalBytes(k.pubKey, want));
  if (!entry) return fail(`has no script-path signature by ${hex.encode(want)}`);
  const [{ leafHash }, rawSig] = entry;
  const leaf = input.tapLeafScript?.find(([, s]) => equalBytes(tapLeafHash(s.subarray(0, -1), s[s.length - 1]!), leafHash));
  if (!leaf) return fail('has a script-path signature for a leaf it does not carry');
  const leafScript = leaf[1].subarray(0, -1);
  if (leaf[1][leaf[1].length - 1] !== TAPSCRIPT_LEAF_VERSION) return fail('leaf version is not 0xc0');
  const sig = parseSchnorrSignature(rawSig);
  if ('error' in sig) return fail(sig.error);
  if (!allowed.includes(sig.hashType)) return fail(`sighash ${formatSighash(sig.hashType)}, expected ${allowed.map(formatSighash).join(' or ')}`);
  if (missing >= 0 && !(sig.hashType & SIGHASH_ANYONECANPAY)) return fail(`prevout of input ${missing} is unknown`);
  if ((sig.hashType & 0x03) === 0x03 && i >= tx.outputsLength) return fail('sighash SINGLE without a matching output');
  const msg = d.witnessV1(i, sig.hashType, leafScript, undefined, TAPSCRIPT_LEAF_VERSION);
  if (!verifySchnorr(sig.sig, msg, want)) return fail('script-path signature does not verify');
  return { input: i, ok: true, family: 'p2tr-script', sighashTypes: [sig.hashType], pubkeys: [want], finalized: false };
}

const xOnly = (k: Uint8Array) => (k.length === 33 ? k.subarray(1) : k);

/**
 * Is `expected` the key behind the signature? ECDSA: the same 33/65-byte key. Taproot script
 * path: one of the leaf keys. Taproot key path: the output key itself, or an internal key that
 * tweaks to it (BIP-86 without scripts, or with the PSBT's `tapMerkleRoot`).
 */
function signerMatches(
  expected: Uint8Array, pubkeys: Uint8Array[], family: SpendFamily, internal?: Uint8Array, merkleRoot?: Uint8Array,
): boolean {
  if (family === 'p2pkh' || family === 'p2wpkh') return pubkeys.some((k) => equalBytes(k, expected));
  const x = xOnly(expected);
  if (pubkeys.some((k) => equalBytes(k, x))) return true;
  if (family !== 'p2tr-key' || x.length !== 32) return false;
  const roots = [new Uint8Array(), ...(merkleRoot && internal && equalBytes(internal, x) ? [merkleRoot] : [])];
  return roots.some((root) => {
    try {
      return equalBytes(taprootTweakPubkey(x, root)[0], pubkeys[0]!);
    } catch {
      return false;
    }
  });
}
