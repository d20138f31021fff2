/**
 * The signer's co-signature for a co-signed listing at checkout completion: SIGHASH_DEFAULT over
 * the listing's leaf of the exact transaction the market is about to journal. One decision per
 * listing outpoint (listing-decisions.ts): never for a listing the seller delisted (a delist is
 * kept per listing id, apart from the outpoint's row, so no later decision on the unit erases it),
 * never for a second transaction, the same signature again for the same transaction (crash
 * recovery).
 */
import { hex } from '@scure/base';
import { parsePsbt, psbtPrevouts } from '../bitcoin/psbt.js';
import { TAPSCRIPT_LEAF_VERSION } from '../bitcoin/taproot.js';
import { KeyRefused, type SignerKeys, type SignerReceipt } from './keys.js';
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
  /** Always true: the delist stands at the signer (recorded now or before), and no co-signature for this listing follows it. */
  revoked: boolean;
  /**
   * This listing was already co-signed into a transaction (`txid`) before the delist reached the
   * signer: that signature was released and cannot be taken back; only that transaction can still
   * settle the listing (the signer never signs another for it).
   */
  already_signed: boolean;
  txid: string | null;
  /** When the delist was first recorded at the signer. */
  recorded_at: number;
  /** Signed by the market key over listing id, outpoint and `recorded_at`: a later co-signature for this listing would be provable misconduct. */
  receipt: SignerReceipt;
}

/** The message of a delist receipt. */
export const revokeReceiptMessage = (listingId: string, outpoint: string, recordedAt: number) =>
  `counterparty-marketplace co-signed listing delist receipt\n${listingId}\n${outpoint}\n${recordedAt}`;

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
  const r = log.cosign(
    req.listing_id,
    req.outpoint,
    (before) => req.supersedes_txid !== undefined && before.txid === req.supersedes_txid && before.txid !== txid,
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
  if ('revoked' in r) throw new KeyRefused('listing_delisted', `listing ${req.listing_id} was delisted at ${r.revoked.recorded_at}; the signer never co-signs it`);
  const { decision, first } = r;
  if (decision.txid !== txid || decision.listing_id !== req.listing_id) {
    throw new KeyRefused('listing_signed_other', `${req.outpoint} was already co-signed into another transaction (${decision.txid})`, { signed_txid: decision.txid });
  }
  return { listing_id: req.listing_id, outpoint: req.outpoint, txid, key_version: decision.key_version, signature: decision.signature, already_signed: !first };
}

/**
 * The seller's delist, linearized with co-signing and recorded whatever the outpoint holds (an
 * accept's signature, a dead checkout's): from then on that listing id is refused. A co-signature
 * of this listing released first is reported (`already_signed`), not undone.
 */
export function revokeListing(keys: SignerKeys, log: ListingDecisionLog, now: () => number, listingId: string, outpoint: string): ListingRevokeResult {
  if (!OUTPOINT.test(outpoint)) throw new KeyRefused('bad_request', 'outpoint must be txid:vout');
  const { revocation, signed } = log.revoke(listingId, outpoint, now());
  const own = signed?.listing_id === listingId ? signed : undefined;
  return {
    listing_id: listingId,
    outpoint: revocation.outpoint,
    revoked: true,
    already_signed: own !== undefined,
    txid: own?.txid ?? null,
    recorded_at: revocation.recorded_at,
    receipt: keys.receipt(revokeReceiptMessage(listingId, revocation.outpoint, revocation.recorded_at)),
  };
}
