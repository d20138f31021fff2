/**
 * The market signer: the oracle that co-signs a collection-offer acceptance the market has
 * checked, and the keeper of soft cancels. It signs one child per parent, never for an
 * alternative whose cancel it recorded first, never with a retired key, and gives the bidder a
 * receipt of its cancel signed by the market key, so a later co-signature would be provable
 * misconduct.
 *
 * A soft cancel names one alternative (parent txid + offer id) and carries the bidder's BIP-322
 * signature over the specification's message, the fixed prefix and the parent txid, which the
 * signer verifies itself: the signature proves the bidder controls the funding; the alternative
 * is named by the market's authenticated request (the bidder's session on the market, which
 * checked the offer is the bidder's). A replayed signature can therefore only cancel more of that
 * bidder's alternatives over that parent, never co-sign anything.
 */
import { hex } from '@scure/base';
import { equalBytes } from '@noble/curves/utils.js';
import { parsePsbt, psbtPrevouts } from '../bitcoin/psbt.js';
import { TAPSCRIPT_LEAF_VERSION } from '../bitcoin/taproot.js';
import type { Network } from '../bitcoin/networks.js';
import { verifyMessage } from '../bitcoin/message-signature.js';
import { DecisionLog, type Decision } from './decisions.js';
import { alternativeReceiptMessage, cancelMessage, parentReceiptMessage } from './messages.js';
import { KeyRefused, SignerKeys, type SignerKey, type SignerReceipt } from './keys.js';
import type { ListingDecisionLog } from './listing-decisions.js';
import { cosignListing, revokeListing, type ListingCosignRequest, type ListingCosignResult, type ListingRevokeResult } from './listing-cosign.js';

export interface CosignRequest {
  parent_txid: string;
  /** The alternative (po_…) the child fills: refused when the bidder cancelled it first. */
  offer_id: string;
  /** The child with every input's prevout (witnessUtxo); input `input_index` spends the escrow. */
  child_psbt_hex: string;
  input_index: number;
  /** The escrow's spending leaf; it must name the signer's key of `key_version`. */
  leaf_script_hex: string;
  key_version: number;
}

export interface CosignResult {
  parent_txid: string;
  child_txid: string;
  key_version: number;
  /** 64-byte BIP-340 signature (SIGHASH_DEFAULT, which Counterparty reads as ALL). */
  signature: string;
  already_signed: boolean;
}

export interface CancelRequest {
  parent_txid: string;
  /** The alternative refused from now on. */
  offer_id: string;
  /** The bidder address and its BIP-322 simple signature over `cancelMessage(parent_txid)`. */
  address: string;
  signature: string;
}

export interface CancelResult {
  parent_txid: string;
  offer_id: string;
  cancelled: boolean;
  already_signed: boolean;
  recorded_at: number;
  receipt: SignerReceipt | null;
}

export class MarketSigner {
  constructor(
    private readonly keys: SignerKeys,
    private readonly log: DecisionLog,
    private readonly now: () => number,
    private readonly listings: ListingDecisionLog,
    /** The chain the bidders' cancel signatures are verified for. */
    private readonly network: Network,
  ) {}

  /** A co-signed listing's checkout: the market's signature over that exact transaction (listing-cosign.ts). */
  cosignListing(req: ListingCosignRequest): ListingCosignResult {
    return cosignListing(this.keys, this.listings, this.now, req);
  }

  /** A co-signed listing was delisted: the signer never co-signs it afterwards, and signs a receipt saying so. */
  revokeListing(listingId: string, outpoint: string): ListingRevokeResult {
    return revokeListing(this.keys, this.listings, this.now, listingId, outpoint);
  }

  info(): { current: SignerKey; keys: SignerKey[] } {
    return { current: this.keys.current(), keys: this.keys.all() };
  }

  cosign(req: CosignRequest): CosignResult {
    const p = parsePsbt(req.child_psbt_hex);
    if (!p.ok) throw new KeyRefused('bad_request', `child: ${p.error}`);
    const tx = p.tx;
    const input = req.input_index < tx.inputsLength ? tx.getInput(req.input_index) : undefined;
    if (!input?.txid || hex.encode(input.txid) !== req.parent_txid || input.index !== 0) throw new KeyRefused('bad_request', `child input ${req.input_index} does not spend ${req.parent_txid}:0`);
    const leaf = hex.decode(req.leaf_script_hex);
    const key = this.keys.all().find((k) => k.version === req.key_version);
    if (!key) throw new KeyRefused('key_unknown', `no signer key version ${req.key_version}`);
    if (!containsPush(leaf, hex.decode(key.pubkey))) throw new KeyRefused('leaf_without_market_key', 'the leaf does not name the market key of that version');
    const { prevouts, errors } = psbtPrevouts(tx);
    const missing = prevouts.findIndex((x) => !x);
    if (missing !== -1) throw new KeyRefused('bad_request', `child input ${missing}: ${errors[missing] ?? 'no prevout'}`);
    const msg = tx.preimageWitnessV1(req.input_index, prevouts.map((x) => x!.script), 0, prevouts.map((x) => x!.amount), undefined, leaf, TAPSCRIPT_LEAF_VERSION);
    const childTxid = tx.id;
    const decided = this.log.decide(req.parent_txid, req.offer_id, (): Decision => ({
      parent_txid: req.parent_txid,
      state: 'signed',
      child_txid: childTxid,
      signature: hex.encode(this.keys.sign(req.key_version, msg)),
      key_version: req.key_version,
      recorded_at: this.now(),
    }));
    if ('refused' in decided) throw new KeyRefused('alternative_cancelled', `the bidder cancelled ${req.offer_id} of ${req.parent_txid} at ${decided.refused.recorded_at}; the signer never co-signs it`);
    const { decision, first } = decided;
    if (decision.state === 'cancelled') throw new KeyRefused('parent_cancelled', `the bidder cancelled ${req.parent_txid} at ${decision.recorded_at}; the signer never co-signs it`);
    if (decision.child_txid !== childTxid) throw new KeyRefused('already_signed_other', `${req.parent_txid} was already co-signed for another child (${decision.child_txid})`);
    return { parent_txid: req.parent_txid, child_txid: childTxid, key_version: decision.key_version!, signature: decision.signature!, already_signed: !first };
  }

  /**
   * The soft cancel of one alternative, linearized with cosign: a cancel recorded first stands
   * (and its first `recorded_at`); a signature released first for the parent (this alternative or
   * a sibling) makes it `already_signed`. The bidder's signature is checked here, not trusted.
   */
  cancel(req: CancelRequest): CancelResult {
    const v = verifyMessage({ address: req.address, message: cancelMessage(req.parent_txid), signatureBase64: req.signature, network: this.network, method: 'BIP-322' });
    if (!v.ok) throw new KeyRefused('bad_request', `cancel signature: ${v.detail}`);
    const r = this.log.cancelAlternative({ parent_txid: req.parent_txid, offer_id: req.offer_id, address: req.address, recorded_at: this.now() });
    const base = { parent_txid: req.parent_txid, offer_id: req.offer_id };
    if ('parent' in r) {
      const d = r.parent;
      if (d.state === 'signed') return { ...base, cancelled: false, already_signed: true, recorded_at: d.recorded_at, receipt: null };
      return { ...base, cancelled: true, already_signed: false, recorded_at: d.recorded_at, receipt: this.keys.receipt(parentReceiptMessage(req.parent_txid, d.recorded_at)) };
    }
    const at = r.cancel.recorded_at;
    return { ...base, cancelled: true, already_signed: false, recorded_at: at, receipt: this.keys.receipt(alternativeReceiptMessage(req.parent_txid, req.offer_id, at)) };
  }

  /** Retires the current key; the next version signs from now on. */
  rotate(): SignerKey {
    return this.keys.rotate(this.now());
  }
}

/** Whether `script` pushes exactly `data` (a 32-byte x-only key push: 0x20 ‖ key). */
function containsPush(script: Uint8Array, data: Uint8Array): boolean {
  for (let i = 0; i + data.length < script.length; i++) {
    if (script[i] === data.length && equalBytes(script.subarray(i + 1, i + 1 + data.length), data)) return true;
  }
  return false;
}
