/**
 * Trade kernel: owns the signed-input merge and finalization of every wallet-signed settlement
 * (checkout completions, exact-offer activations and accepts, collection-offer placements and accepts).
 *
 * What the buyer sends back, checked before anything is written:
 *
 * - a PSBT that does not parse: 422 invalid_transaction (as for every signed PSBT of the market);
 * - its unsigned transaction must be the quote's (version, locktime, every outpoint and sequence,
 *   every output) and every input's prevout the quote's: any changed, added, missing or swapped
 *   input or output is 422 template_mismatch;
 * - every buyer input must carry a valid signature by the buyer address, ALL (a 64-byte P2TR
 *   DEFAULT signature counts as ALL): a wrong key or another sighash is 422 signature_invalid,
 *   as for the seller's own signed PSBTs;
 * - input 0 of the final transaction must pass Counterparty's input-0 rule as Core reads it (a
 *   flag it can read, ALL): a valid signature in a witness shape Core reads otherwise (a taproot
 *   annex makes it two items, read as P2WPKH) would drop the detach, and the units would move
 *   to output 1, back to the first seller. Also 422 signature_invalid.
 *
 * Only the buyer's signatures are taken from the submitted PSBT; everything else comes from the
 * stored quote, and the sellers' signatures from their stored halves.
 */
import { equalBytes } from '@noble/curves/utils.js';
import type { Transaction } from '@scure/btc-signer';
import { RawTx } from '@scure/btc-signer/script.js';
import { ApiError } from '../http/errors.js';
import type { Network } from '../bitcoin/networks.js';
import type { Prevout } from '../bitcoin/transaction.js';
import { PsbtView } from '../bitcoin/psbt-view.js';
import { parsePsbt, psbtPrevouts } from '../bitcoin/psbt.js';
import { compareToTemplate, extractWithFinals, finalFields, finalizeAndExtract, verifyPsbt, type FinalFields } from '../bitcoin/psbt-verify.js';
import { checkInput0Sighash } from '../counterparty/sighash-flag.js';

const FIELD = 'body.psbt_hex';

function parsed(psbtHex: string): Transaction {
  const p = parsePsbt(psbtHex);
  if (!p.ok) throw new ApiError('invalid_transaction', `${FIELD}: ${p.error}`, { field: FIELD });
  return p.tx;
}

/**
 * A co-signed unit's input among the inputs to sign: only the holder's signature by `key` over
 * the co-signed leaf (`leafHash`) is taken from it (never a key-path one: the market signer's
 * co-signature is what completes the leaf), DEFAULT or ALL.
 */
export interface LeafInput {
  index: number;
  key: Uint8Array;
  leafHash: Uint8Array;
}

/**
 * What a quote fixed of its transaction, for the fast check of what the buyer sends back: the
 * txid of the unsigned transaction, the fee (inputs less outputs) and the prevout of each input,
 * at most one amount left out (the buyer coin of a one-coin quote: the fee gives it).
 */
export interface QuotedTransaction {
  txid: string;
  fee: bigint;
  prevouts: ReadonlyArray<{ script: Uint8Array; amount?: bigint }>;
}

/** What a seller's input of the quote carries; anything else on it would be the buyer's. */
const UNSIGNED_FIELDS = new Set(['txid', 'index', 'sequence', 'witnessUtxo', 'sighashType']);
/** What stays of a buyer input besides its final fields: what extraction and verification read. */
const KEPT_FIELDS = new Set(['txid', 'index', 'sequence', 'witnessUtxo']);

/**
 * `view` (of the signed PSBT) is the quoted transaction itself, without reading the quote's
 * PSBT: every input is SegWit, so the txid of its unsigned transaction commits to version,
 * locktime, every outpoint and sequence and every output, and each input's prevout is the quoted
 * one. The inputs not to sign carry only unsigned fields (nothing of the buyer's ends up in a
 * seller's input). False when anything differs: the caller then compares with the quote's PSBT,
 * which names the difference.
 */
function isQuoted(view: PsbtView, quoted: QuotedTransaction, toSign: ReadonlySet<number>): boolean {
  if (view.tx.inputsLength !== quoted.prevouts.length || quoted.prevouts.filter((p) => p.amount === undefined).length > 1) return false;
  try {
    if (view.unsignedTxid() !== quoted.txid) return false;
  } catch {
    return false;
  }
  const out = view.outputs.reduce((t, o) => t + (o.amount ?? 0n), 0n);
  const known = quoted.prevouts.reduce((t, p) => t + (p.amount ?? 0n), 0n);
  return quoted.prevouts.every((q, i) => {
    const p = view.prevouts[i];
    const amount = q.amount ?? out + quoted.fee - known;
    if (!p || p.amount !== amount || !equalBytes(p.script, q.script)) return false;
    return toSign.has(i) || view.fields[i]!.every((k) => UNSIGNED_FIELDS.has(k));
  });
}

/** The quote's PSBT, checked against `signed`: 422 template_mismatch naming the first difference. */
function fromTemplate(signed: Transaction, template: string, mine: (Prevout | undefined)[]): PsbtView {
  // Each PSBT parsed once: the quote's is compared, then becomes the merged transaction.
  const merged = parsed(template);
  const c = compareToTemplate(signed, merged);
  if (!c.ok) throw new ApiError('template_mismatch', `${FIELD}: ${c.error}`, { field: FIELD });
  const view = new PsbtView(merged);
  view.prevouts.forEach((t, i) => {
    const p = mine[i];
    if (!t || !p || p.amount !== t.amount || !equalBytes(p.script, t.script)) {
      throw new ApiError('template_mismatch', `${FIELD}: input ${i} prevout differs from the quote`, { field: FIELD });
    }
  });
  return view;
}

/** The quote's PSBT with the buyer's verified signatures on its inputs. */
export function buyerSigned(
  psbtHex: string, template: string, inputsToSign: number[], buyer: string, network: Network,
  opts: { leaf?: LeafInput; quoted?: QuotedTransaction } = {},
): Transaction {
  return buyerHalf(psbtHex, template, inputsToSign, buyer, network, opts).merged();
}

/**
 * The buyer's half of a settlement, verified: the view of the transaction its checks read and
 * the buyer's final fields, verified as they stand beside it. They are merged into the
 * transaction only when it is asked for (`merged`): withSellers extracts them as verified, without
 * scure's `updateInput` (which re-encodes and re-validates the whole input on each merge).
 */
export class BuyerHalf {
  private done = false;

  /** `reduce`: the transaction is the buyer's own PSBT, whose signed inputs keep only their final fields once merged. */
  constructor(readonly view: PsbtView, readonly finals: ReadonlyMap<number, FinalFields>, private readonly reduce: boolean) {}

  /** The quote's transaction with the buyer's final fields on its inputs (merged once). */
  merged(): Transaction {
    const tx = this.view.tx;
    if (this.done) return tx;
    this.done = true;
    for (const [i, fields] of this.finals) {
      // The buyer's own PSBT keeps only the unsigned fields and the final ones of a signed input
      // (the others dropped, never re-validated).
      const drop = this.reduce ? Object.fromEntries(this.view.fields[i]!.filter((k) => !KEPT_FIELDS.has(k)).map((k) => [k, undefined])) : {};
      tx.updateInput(i, { ...drop, ...fields }, true);
    }
    return tx;
  }
}

/**
 * buyerSigned, the merge left to the caller (BuyerHalf). With `quoted`, a signed PSBT that is the
 * quoted transaction (isQuoted) stands for the quote's, and the quote's PSBT is not read.
 */
export function buyerHalf(
  psbtHex: string, template: string, inputsToSign: number[], buyer: string, network: Network,
  opts: { leaf?: LeafInput; quoted?: QuotedTransaction } = {},
): BuyerHalf {
  const signed = parsed(psbtHex);
  const leaf = opts.leaf;
  const mine = opts.quoted && !leaf ? new PsbtView(signed) : undefined;
  const view = mine && isQuoted(mine, opts.quoted!, new Set(inputsToSign)) ? mine : fromTemplate(signed, template, mine?.prevouts ?? psbtPrevouts(signed).prevouts);
  const merged = view.tx;
  const finals = new Map<number, FinalFields>();
  for (const i of inputsToSign) {
    const input = signed.getInput(i);
    if (leaf?.index === i) {
      // The leaf stays partial: the market signer's co-signature completes it later.
      const sig = input.tapScriptSig?.filter(([k]) => equalBytes(k.pubKey, leaf.key) && equalBytes(k.leafHash, leaf.leafHash));
      if (sig?.length) merged.updateInput(i, { tapScriptSig: sig }, true);
      continue;
    }
    // Final: the witness verified below is the one extracted (an unsigned input stays unsigned
    // and fails verification).
    const fields = finalFields(input, view.prevouts[i]?.script ?? new Uint8Array());
    if (fields) finals.set(i, fields);
  }
  const v = verifyPsbt(
    merged,
    inputsToSign.map((index) => ({ index, sighash: 'DEFAULT_OR_ALL' as const, signer: leaf?.index === index ? { pubkey: leaf.key } : { address: buyer, network } })),
    { view, finals },
  );
  if (!v.ok) throw new ApiError('signature_invalid', `${FIELD}: ${v.error}`, { field: FIELD });
  return new BuyerHalf(view, finals, view === mine);
}

export interface SellerInput {
  index: number;
  seller: string;
  listing_id: string;
  sig: Record<string, unknown>;
  /** Co-signed: the seller key the leaf signature is by (the address pays the co-signed output, not the seller). */
  cosignedKey?: Uint8Array;
}

/**
 * Adds the sellers' stored signatures (input k = line k − 1) and checks them against this very
 * transaction. A stored half that does not verify here means the listing is not what was
 * quoted: 409 checkout_changed.
 */
export function addSellers(merged: Transaction, sellers: SellerInput[], network: Network): Transaction {
  for (const s of sellers) merged.updateInput(s.index, s.sig, true);
  checkSellers(merged, sellers, network);
  return merged;
}

/**
 * Every seller input of `merged` checked in one pass (its shared digests hashed once), with
 * `finals` standing in for the inputs' own final fields where given; the first that fails is
 * 409 checkout_changed naming its listing.
 */
function checkSellers(merged: Transaction, sellers: SellerInput[], network: Network, finals?: ReadonlyMap<number, FinalFields>, view?: PsbtView): void {
  const v = verifyPsbt(
    merged,
    sellers.map((s) => ({ index: s.index, sighash: 'SINGLE|ANYONECANPAY' as const, signer: s.cosignedKey ? { pubkey: s.cosignedKey } : { address: s.seller, network } })),
    { ...(finals ? { finals } : {}), ...(view ? { view } : {}) },
  );
  if (!v.ok) {
    const bad = sellers[v.inputs.findIndex((r) => !r.ok)] ?? sellers[0]!;
    throw new ApiError('checkout_changed', `listing ${bad.listing_id} can no longer settle as quoted; quote again`, { listing_id: bad.listing_id });
  }
}

/**
 * The network transaction of a checkout whose every input is signed (no co-signed line): the
 * sellers' stored final fields (input k = line k − 1, `sig` as SellerHalves.signature gives them)
 * checked against this very transaction as addSellers checks them, then serialized with the
 * buyer's inputs as `merged` holds them. The fields are not merged into `merged` (each scure
 * `updateInput` re-encodes and re-validates the whole input); the bytes checked are the bytes
 * extracted. A stored half that does not verify here is 409 checkout_changed, as in addSellers.
 * `merged` may be given as the buyer's half (buyerHalf), not merged: its view is read no more,
 * and the buyer's final fields are extracted as they were verified.
 */
export function withSellers(merged: Transaction | BuyerHalf, sellers: SellerInput[], expectedTxid: string, network: Network): { txid: string; hex: string } {
  // One read of the transaction for the checks and the extraction (the buyer's half's, when given).
  const view = merged instanceof BuyerHalf ? merged.view : new PsbtView(merged);
  const finals = new Map<number, FinalFields>(merged instanceof BuyerHalf ? merged.finals : []);
  for (const s of sellers) {
    const f = s.sig as { finalScriptWitness?: Uint8Array[]; finalScriptSig?: Uint8Array };
    // A half whose final fields cannot be read (none stored, or a leaf signature) is no final witness:
    // an empty one fails its check below.
    finals.set(s.index, f.finalScriptWitness?.length ? { finalScriptWitness: f.finalScriptWitness } : f.finalScriptSig?.length ? { finalScriptSig: f.finalScriptSig } : { finalScriptWitness: [] });
  }
  checkSellers(view.tx, sellers, network, finals, view);
  const final = extractWithFinals(view.tx, finals, view);
  if (!final.ok) throw new ApiError('invalid_transaction', `${FIELD}: ${final.error}`, { field: FIELD });
  return checkedCheckout(final, final.scriptSigs[0]!, final.witnesses[0]!, expectedTxid);
}

/**
 * The network transaction of a fully signed checkout, held to Counterparty's input-0 rule and
 * to the quoted txid.
 */
export function finalCheckout(merged: Transaction, expectedTxid: string): { txid: string; hex: string } {
  const final = finalizeAndExtract(merged);
  if (!final.ok) throw new ApiError('invalid_transaction', `${FIELD}: ${final.error}`, { field: FIELD });
  const raw = RawTx.decode(final.tx);
  return checkedCheckout(final, raw.inputs[0]!.finalScriptSig, raw.witnesses?.[0] ?? [], expectedTxid);
}

/** Counterparty's input-0 rule on input 0's final fields, and the quoted txid. */
function checkedCheckout(final: { txid: string; hex: string }, scriptSig0: Uint8Array, witness0: Uint8Array[], expectedTxid: string): { txid: string; hex: string } {
  const input0 = checkInput0Sighash(scriptSig0, witness0);
  if (!input0.ok) throw new ApiError('signature_invalid', `${FIELD}: ${input0.reason} (Counterparty would not parse the delivery)`, { field: FIELD });
  if (final.txid !== expectedTxid) throw new ApiError('template_mismatch', `${FIELD}: txid ${final.txid}, quoted ${expectedTxid}`, { field: FIELD });
  return { txid: final.txid, hex: final.hex };
}
