/**
 * The signer's co-signature for a co-signed listing at checkout completion: SIGHASH_DEFAULT over
 * the listing's leaf of the exact transaction the market is about to journal. One decision per
 * listing outpoint (listing-decisions.ts): never for a listing the seller delisted, never for a
 * second transaction, the same signature again for the same transaction (crash recovery).
 */
import { hex } from '@scure/base';
import { parsePsbt, psbtPrevouts } from '../bitcoin/psbt.js';
import { TAPSCRIPT_LEAF_VERSION } from '../bitcoin/taproot.js';
import { KeyRefused, type SignerKeys } from './keys.js';
import type { ListingDecision, ListingDecisionLog } from './listing-decisions.js';

export interface ListingCosignRequest {
  listing_id: string;
  /** `txid:vout` of the listed unit: the transaction's input `input_index` must spend it. */
  outpoint: string;
  /** The whole transaction with every input's prevout (witnessUtxo). */
  tx_psbt_hex: string;
  input_index: number;
  /** The co-signed output's leaf; it must name the signer's key of `key_version`. */
  leaf_script_hex: string;
  key_version: number;
  /**
   * The transaction this outpoint was co-signed into before, which the market's journal shows
   * can no longer settle (refused; conflicted: an input spent elsewhere; or never journaled: the
   * market stopped before its commit). Only then does a new decision replace a signed one;
   * without it a buyer who double-spends a checkout could make a co-signed listing unsellable.
   */
  supersedes_txid?: string;
}

export interface ListingCosignResult {
  listing_id: string;
  outpoint: string;
  txid: string;
  key_version: number;
  /** 64-byte BIP-340 signature, SIGHASH_DEFAULT (commits to every input and output). */
  signature: string;
  already_signed: boolean;
}

export interface ListingRevokeResult {
  listing_id: string;
  outpoint: string;
  /** True when the delist stands at the signer (recorded now or before). */
  revoked: boolean;
  /** The listing was already co-signed into a transaction before the delist reached the signer. */
  already_signed: boolean;
  txid: string | null;
  recorded_at: number;
}

const OUTPOINT = /^[0-9a-f]{64}:\d{1,10}$/;

export function cosignListing(keys: SignerKeys, log: ListingDecisionLog, now: () => number, req: ListingCosignRequest): ListingCosignResult {
  if (!OUTPOINT.test(req.outpoint)) throw new KeyRefused('bad_request', 'outpoint must be txid:vout');
  const p = parsePsbt(req.tx_psbt_hex);
  if (!p.ok) throw new KeyRefused('bad_request', `transaction: ${p.error}`);
  const tx = p.tx;
  const input = req.input_index < tx.inputsLength ? tx.getInput(req.input_index) : undefined;
  if (!input?.txid || `${hex.encode(input.txid)}:${input.index}` !== req.outpoint) throw new KeyRefused('bad_request', `input ${req.input_index} does not spend ${req.outpoint}`);
  const leaf = hex.decode(req.leaf_script_hex);
  const key = keys.all().find((k) => k.version === req.key_version);
  if (!key) throw new KeyRefused('key_unknown', `no signer key version ${req.key_version}`);
  if (!hex.encode(leaf).endsWith(`20${key.pubkey}ac`)) throw new KeyRefused('leaf_without_market_key', 'the leaf does not end with the market key of that version');
  const { prevouts, errors } = psbtPrevouts(tx);
  const missing = prevouts.findIndex((x) => !x);
  if (missing !== -1) throw new KeyRefused('bad_request', `input ${missing}: ${errors[missing] ?? 'no prevout'}`);
  const msg = tx.preimageWitnessV1(req.input_index, prevouts.map((x) => x!.script), 0, prevouts.map((x) => x!.amount), undefined, leaf, TAPSCRIPT_LEAF_VERSION);
  const txid = tx.id;
  const { decision, first } = log.decide(
    req.outpoint,
    (before) =>
      before.state === 'revoked' ? before.listing_id !== req.listing_id : req.supersedes_txid !== undefined && before.txid === req.supersedes_txid && before.txid !== txid,
    (): ListingDecision => ({
      outpoint: req.outpoint,
      listing_id: req.listing_id,
      state: 'signed',
      txid,
      signature: hex.encode(keys.sign(req.key_version, msg)),
      key_version: req.key_version,
      recorded_at: now(),
    }),
  );
  if (decision.state === 'revoked') throw new KeyRefused('listing_delisted', `listing ${decision.listing_id} on ${req.outpoint} was delisted at ${decision.recorded_at}; the signer never co-signs it`);
  if (decision.txid !== txid || decision.listing_id !== req.listing_id) {
    throw new KeyRefused('listing_signed_other', `${req.outpoint} was already co-signed into another transaction (${decision.txid})`, { signed_txid: decision.txid! });
  }
  return { listing_id: req.listing_id, outpoint: req.outpoint, txid, key_version: decision.key_version!, signature: decision.signature!, already_signed: !first };
}

/** The seller's delist, linearized with co-signing: recorded first, it stands; after a co-signature it answers already_signed. */
export function revokeListing(log: ListingDecisionLog, now: () => number, listingId: string, outpoint: string): ListingRevokeResult {
  if (!OUTPOINT.test(outpoint)) throw new KeyRefused('bad_request', 'outpoint must be txid:vout');
  const { decision } = log.decide(
    outpoint,
    (before) => before.listing_id !== listingId && before.state === 'revoked',
    () => ({ outpoint, listing_id: listingId, state: 'revoked', txid: null, signature: null, key_version: null, recorded_at: now() }),
  );
  const signed = decision.state === 'signed';
  return { listing_id: listingId, outpoint, revoked: !signed && decision.listing_id === listingId, already_signed: signed, txid: decision.txid, recorded_at: decision.recorded_at };
}
