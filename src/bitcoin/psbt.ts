/**
 * Reading PSBTs (BIP-174, and BIP-370 v2 through scure) for verification: parsing hex / base64 /
 * bytes permissively, and the prevout of each input, checked against its `nonWitnessUtxo`.
 */
import { base64, hex } from '@scure/base';
import { equalBytes } from '@noble/curves/utils.js';
import { RawTx } from '@scure/btc-signer/script.js';
import { Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS, type Prevout } from './transaction.js';
import { hexToBytes } from './hex.js';

const PSBT_MAGIC = new Uint8Array([0x70, 0x73, 0x62, 0x74, 0xff]); // "psbt" 0xff

/** Bytes of a PSBT given as bytes, hex or base64 (the two encodings wallets use). */
export function psbtBytes(psbt: string | Uint8Array): Uint8Array {
  if (psbt instanceof Uint8Array) return psbt;
  const s = psbt.trim();
  if (/^[0-9a-fA-F]+$/.test(s) && s.length % 2 === 0) return hexToBytes(s);
  return base64.decode(s);
}

/** Parse a PSBT; never throws. */
export function parsePsbt(psbt: string | Uint8Array | Transaction): { ok: true; tx: Transaction } | { ok: false; error: string } {
  if (psbt instanceof Transaction) return { ok: true, tx: psbt };
  let bytes: Uint8Array;
  try {
    bytes = psbtBytes(psbt);
  } catch {
    return { ok: false, error: 'PSBT: not hex or base64' };
  }
  if (bytes.length < 5 || !equalBytes(bytes.subarray(0, 5), PSBT_MAGIC)) return { ok: false, error: 'PSBT: missing magic bytes' };
  try {
    return { ok: true, tx: Transaction.fromPSBT(bytes, READ_TX_OPTS) };
  } catch (e) {
    return { ok: false, error: `PSBT: does not parse (${(e as Error).message})` };
  }
}

/**
 * The output spent by input `idx`, from `witnessUtxo` or `nonWitnessUtxo`. A `nonWitnessUtxo`
 * must hash to the input's txid (BIP-174: otherwise its amounts are unproven); when both fields
 * are present they must agree.
 */
export function psbtPrevout(tx: Transaction, idx: number): { ok: true; prevout: Prevout } | { ok: false; error: string } {
  return prevoutOf(tx.getInput(idx));
}

/** `psbtPrevout` of an input already read (`tx.getInput`). */
export function prevoutOf(input: ReturnType<Transaction['getInput']>): { ok: true; prevout: Prevout } | { ok: false; error: string } {
  let fromFull: Prevout | undefined;
  if (input.nonWitnessUtxo) {
    const nw = input.nonWitnessUtxo;
    const raw = RawTx.encode({ ...nw, segwitFlag: false, witnesses: undefined });
    const id = Transaction.fromRaw(raw, READ_TX_OPTS).id;
    if (!input.txid || id !== hex.encode(input.txid)) return { ok: false, error: 'nonWitnessUtxo does not match the input txid' };
    const out = nw.outputs[input.index ?? -1];
    if (!out) return { ok: false, error: 'nonWitnessUtxo has no output at the input index' };
    fromFull = { script: out.script, amount: out.amount };
  }
  const w = input.witnessUtxo;
  if (w) {
    if (fromFull && (!equalBytes(fromFull.script, w.script) || fromFull.amount !== w.amount)) {
      return { ok: false, error: 'witnessUtxo and nonWitnessUtxo disagree' };
    }
    return { ok: true, prevout: { script: w.script, amount: w.amount } };
  }
  if (fromFull) return { ok: true, prevout: fromFull };
  return { ok: false, error: 'no witnessUtxo or nonWitnessUtxo' };
}

/** Prevouts of every input; `undefined` where unknown (with the reason in `errors`). */
export function psbtPrevouts(tx: Transaction): { prevouts: (Prevout | undefined)[]; errors: (string | undefined)[] } {
  const prevouts: (Prevout | undefined)[] = [];
  const errors: (string | undefined)[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const p = psbtPrevout(tx, i);
    prevouts.push(p.ok ? p.prevout : undefined);
    errors.push(p.ok ? undefined : p.error);
  }
  return { prevouts, errors };
}
