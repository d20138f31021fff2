/**
 * Two PSBT helpers around verification: extracting the final transaction once every input is
 * signed, and checking that a signed PSBT is still the transaction the market built (a signer
 * must only add signatures, never change version, locktime, inputs or outputs).
 */
import { hex } from '@scure/base';
import { equalBytes } from '@noble/curves/utils.js';
import { Transaction } from '@scure/btc-signer';
import { RawTx } from '@scure/btc-signer/script.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { parsePsbt } from './psbt.js';
import { READ_TX_OPTS } from './transaction.js';
import type { PsbtView } from './psbt-view.js';
import { bytesToHex } from './hex.js';

export type ExtractResult =
  | { ok: true; tx: Uint8Array; hex: string; txid: string; vsize: number }
  | { ok: false; error: string };

/**
 * Finalize (scure's finalizer for partial signatures) and extract the network transaction.
 * Fails, naming the input, when an input is unsigned or cannot be finalized. It does not verify
 * signatures: run `verifyPsbt` first.
 */
export function extractFinalTransaction(psbt: string | Uint8Array | Transaction): ExtractResult {
  const parsed = parsePsbt(psbt instanceof Transaction ? psbt.toPSBT() : psbt);
  if (!parsed.ok) return parsed;
  return finalizeAndExtract(parsed.tx);
}

/**
 * `extractFinalTransaction` on a parsed PSBT the caller is done with: finalized in place,
 * without the copy (an encode and a re-parse that re-validates every key in it).
 */
export function finalizeAndExtract(tx: Transaction): ExtractResult {
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (input.finalScriptWitness?.length || input.finalScriptSig?.length) continue;
    const hasSig = Boolean(input.partialSig?.length || input.tapKeySig || input.tapScriptSig?.length);
    if (!hasSig) return { ok: false, error: `PSBT: input ${i} is not signed` };
    try {
      tx.finalizeIdx(i);
    } catch (e) {
      return { ok: false, error: `PSBT: input ${i} cannot be finalized (${(e as Error).message})` };
    }
  }
  let bytes: Uint8Array;
  try {
    bytes = tx.extract();
  } catch (e) {
    return { ok: false, error: `PSBT: cannot extract (${(e as Error).message})` };
  }
  // The id and size of the transaction just serialized, read from it rather than from a re-parse.
  return { ok: true, tx: bytes, hex: hex.encode(bytes), txid: tx.id, vsize: tx.vsize };
}

/** An input's final fields: a witness (segwit, taproot) or a scriptSig (legacy). */
export type FinalFields = { finalScriptWitness: Uint8Array[] } | { finalScriptSig: Uint8Array };

export type ExtractWithFinalsResult =
  | { ok: true; tx: Uint8Array; hex: string; txid: string; scriptSigs: Uint8Array[]; witnesses: Uint8Array[][] }
  | { ok: false; error: string };

const EMPTY = new Uint8Array();

/**
 * The network transaction of `tx` with `finals` as the final fields of the inputs it names (the
 * others must be final already), serialized directly: what `finalizeAndExtract` gives for a PSBT
 * whose inputs carry those fields, without merging them into it first (scure's `updateInput`
 * re-encodes and re-validates every field of the input on each merge). The same refusals as
 * scure's `extract`: an input not final, no outputs, outputs worth more than the inputs. It
 * does not verify signatures: run `verifyPsbt` (with the same `finals`) first. `view`: one of `tx`
 * (its inputs and outputs then not read again; the amounts are its prevouts').
 */
export function extractWithFinals(tx: Transaction, finals: ReadonlyMap<number, FinalFields>, view?: PsbtView): ExtractWithFinalsResult {
  if (!tx.outputsLength) return { ok: false, error: 'PSBT: cannot extract (Transaction has no outputs)' };
  const inputs: Array<{ txid: Uint8Array; index: number; finalScriptSig: Uint8Array; sequence: number }> = [];
  const scriptSigs: Uint8Array[] = [];
  const witnesses: Uint8Array[][] = [];
  let fee = 0n;
  for (let i = 0; i < tx.inputsLength; i++) {
    // With a view, the input itself is read only when its own final fields are taken.
    const given = finals.get(i);
    const input = view && given ? undefined : tx.getInput(i);
    const f: { finalScriptWitness?: Uint8Array[]; finalScriptSig?: Uint8Array } = given ?? input!;
    if (!f.finalScriptWitness?.length && !f.finalScriptSig?.length) return { ok: false, error: `PSBT: input ${i} is not signed` };
    const at = view ? view.inputs[i]! : input!;
    if (!at.txid || at.index === undefined) return { ok: false, error: `PSBT: input ${i} has no outpoint` };
    const amount = view ? view.prevouts[i]?.amount : (input!.witnessUtxo?.amount ?? input!.nonWitnessUtxo?.outputs[at.index]?.amount);
    if (amount === undefined) return { ok: false, error: 'PSBT: cannot extract (Empty input amount)' };
    fee += amount;
    scriptSigs.push(f.finalScriptSig ?? EMPTY);
    witnesses.push(f.finalScriptWitness ?? []);
    inputs.push({ txid: at.txid, index: at.index, finalScriptSig: f.finalScriptSig ?? EMPTY, sequence: at.sequence ?? 0xffffffff });
  }
  const outputs: Array<{ amount: bigint; script: Uint8Array }> = [];
  for (let o = 0; o < tx.outputsLength; o++) {
    const out = view ? view.outputs[o]! : tx.getOutput(o);
    if (out.amount === undefined || !out.script) return { ok: false, error: `PSBT: output ${o} has no script or amount` };
    fee -= out.amount;
    outputs.push({ amount: out.amount, script: out.script });
  }
  if (fee < 0n) return { ok: false, error: 'PSBT: cannot extract (Outputs spends more than inputs amount)' };
  const base = { version: tx.version, lockTime: tx.lockTime, inputs, outputs };
  const segwit = witnesses.some((w) => w.length > 0);
  const bytes = RawTx.encode({ ...base, witnesses, segwitFlag: segwit });
  // The txid hashes the serialization without witnesses (BIP-144), byte-reversed: with no
  // scriptSig, that of the unsigned transaction, which the view may have hashed already.
  const txid = view && scriptSigs.every((s) => !s.length)
    ? view.unsignedTxid()
    : hex.encode(sha256(sha256(segwit ? RawTx.encode({ ...base, segwitFlag: false }) : bytes)).reverse());
  return { ok: true, tx: bytes, hex: bytesToHex(bytes), txid, scriptSigs, witnesses };
}

export type TemplateComparison = { ok: true } | { ok: false; error: string };

/** Parse a template given as a PSBT, a raw transaction (hex or bytes) or a scure Transaction. */
function templateTx(t: string | Uint8Array | Transaction): Transaction | undefined {
  if (t instanceof Transaction) return t;
  const parsed = parsePsbt(t);
  if (parsed.ok) return parsed.tx;
  try {
    return Transaction.fromRaw(typeof t === 'string' ? hex.decode(t) : t, READ_TX_OPTS);
  } catch {
    return undefined;
  }
}

/**
 * Compare the unsigned transaction of `signed` with `template`: version, locktime, every input's
 * outpoint and sequence, every output's script and amount. Reports the first difference, e.g.
 * `PSBT: output 1 amount 1000, template 2000`.
 */
export function compareToTemplate(
  signed: string | Uint8Array | Transaction,
  template: string | Uint8Array | Transaction,
): TemplateComparison {
  const p = parsePsbt(signed);
  if (!p.ok) return p;
  const a = p.tx;
  const b = templateTx(template);
  if (!b) return { ok: false, error: 'PSBT: template does not parse' };
  const diff = (what: string, x: unknown, y: unknown): TemplateComparison => ({ ok: false, error: `PSBT: ${what} ${x}, template ${y}` });
  if (a.version !== b.version) return diff('version', a.version, b.version);
  if (a.lockTime !== b.lockTime) return diff('locktime', a.lockTime, b.lockTime);
  if (a.inputsLength !== b.inputsLength) return diff('input count', a.inputsLength, b.inputsLength);
  if (a.outputsLength !== b.outputsLength) return diff('output count', a.outputsLength, b.outputsLength);
  for (let i = 0; i < a.inputsLength; i++) {
    const x = a.getInput(i);
    const y = b.getInput(i);
    const ox = `${hex.encode(x.txid ?? new Uint8Array())}:${x.index}`;
    const oy = `${hex.encode(y.txid ?? new Uint8Array())}:${y.index}`;
    if (ox !== oy) return diff(`input ${i} outpoint`, ox, oy);
    const sx = x.sequence ?? 0xffffffff;
    const sy = y.sequence ?? 0xffffffff;
    if (sx !== sy) return diff(`input ${i} sequence`, sx, sy);
  }
  for (let i = 0; i < a.outputsLength; i++) {
    const x = a.getOutput(i);
    const y = b.getOutput(i);
    if (!equalBytes(x.script ?? new Uint8Array(), y.script ?? new Uint8Array())) {
      return diff(`output ${i} script`, hex.encode(x.script ?? new Uint8Array()), hex.encode(y.script ?? new Uint8Array()));
    }
    if (x.amount !== y.amount) return diff(`output ${i} amount`, x.amount, y.amount);
  }
  return { ok: true };
}
