/**
 * Submitting a signed attach (alone, or with its dependent listing half): verify, then journal
 * the signed bytes with claims on every input in the same database transaction that moves the
 * draft to `broadcasting` (and stores the listing, `pending`), then relay. Only the attach is
 * broadcast; the listing becomes public when the indexer has verified the attach.
 */
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { nowSeconds } from '../../clock.js';
import { addressToScript } from '../../bitcoin/address.js';
import { ClaimLost, type SettlementHandlers } from '../../settlement/journal.js';
import { isUniqueViolation } from '../../store/db.js';
import { relayOutcomeError } from '../../settlement/outcome-error.js';
import { draftCosigned, draftStatus, listingTemplate } from './draft-view.js';
import { newId, type DraftRow, type ListingRow, type ListingStore } from './store.js';
import { checkListingExpiry } from './rules.js';
import { verifySignedAttach, verifySignedListing } from './signed.js';
import { ASSET_UTXO_SATS } from './templates.js';
import { createListing, endListing } from './lifecycle.js';
import { outpointKey } from '../../trade/outpoints.js';

export interface SignedListingInput {
  psbt_hex: string;
  expires_at: number;
}

export class AttachSubmission {
  constructor(
    private readonly ctx: Context,
    private readonly store: ListingStore,
  ) {}

  /** POST …/attach and …/attach-and-list. Returns the draft after the relay attempt. */
  async submit(d: DraftRow, attachPsbt: string, listing?: SignedListingInput): Promise<DraftRow> {
    const network = this.ctx.config.NETWORK;
    const now = nowSeconds(this.ctx.clock);
    const attachField = listing ? 'body.attach_psbt_hex' : 'body.psbt_hex';
    // A co-signed reuse draft's "attach" is the move of the unit into its co-signed output.
    if (!d.attach_psbt || !d.attach_signers || !d.attach_inputs) {
      throw new ApiError('state_changed', 'this draft reuses an attached unit; there is no attach to sign');
    }
    if (listing && d.purpose !== 'listing') throw new ApiError('state_changed', 'an attach template is not listed; submit the attach alone');
    const status = draftStatus(d, now);
    const signed = verifySignedAttach(attachPsbt, d.attach_psbt, JSON.parse(d.attach_signers) as { address: string; inputs_to_sign: number[] }[], network, attachField);
    if (status !== 'awaiting_attach_signature') {
      // The same signed bytes again: idempotent (a lost response is recovered this way).
      if (d.attach_txid === signed.txid) {
        const repeat = await this.repeat(d, listing);
        if (repeat) return repeat;
      }
      if (status === 'expired') throw new ApiError('expired', 'the attach template expired; create a new preflight');
      throw new ApiError('state_changed', `the draft is ${status}; the attach was already submitted`, { status });
    }
    if (d.expected_txid && d.expected_txid !== signed.txid) {
      throw new ApiError('template_mismatch', `${attachField}: signed txid ${signed.txid}, expected ${d.expected_txid}`, { field: attachField });
    }

    const withTxid: DraftRow = { ...d, asset_txid: signed.txid, asset_vout: 0, utxo_value_sats: ASSET_UTXO_SATS };
    if (listing) {
      if (d.price_sats === null) throw new ApiError('state_changed', 'set a price on the draft before signing the listing', { next_action: 'set_price' });
      checkListingExpiry(listing.expires_at, now);
      const template = listingTemplate(withTxid, network);
      if (!template) throw new Error('listing template unavailable');
      verifySignedListing(listing.psbt_hex, template.psbt_hex, d.seller, network, 'body.listing_psbt_hex', draftCosigned(d, network));
    }

    const settlementId = await this.store.db.transaction().execute(async (tx) => {
      const moved = await tx
        .updateTable('listing_drafts')
        .set({
          status: 'broadcasting',
          attach_txid: signed.txid,
          expected_txid: signed.txid,
          asset_txid: signed.txid,
          asset_vout: 0,
          asset_outpoint: outpointKey(signed.txid, 0),
          utxo_value_sats: ASSET_UTXO_SATS,
          updated_at: now,
        })
        .where('id', '=', d.id)
        .where('status', '=', 'awaiting_attach_signature')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw new ApiError('state_changed', 'the draft changed meanwhile; read it again');
      let s;
      try {
        s = await this.ctx.journal.journal(tx, { kind: 'attach', ref_id: d.id, txs: [signed], claims: JSON.parse(d.attach_inputs!) as string[] });
      } catch (e) {
        if (e instanceof ClaimLost) throw new ApiError('conflict_spend', `attach input ${e.outpoint} is already spent by another settlement`);
        throw e;
      }
      if (listing) {
        this.ctx.failpoint('attach-list-between-rows');
        const row = listingRow(withTxid, listing, 'pending', now);
        await createListing(tx, row);
        await tx.updateTable('listing_drafts').set({ listing_id: row.id }).where('id', '=', d.id).execute();
      }
      return s.id;
    }).catch((e: unknown) => {
      // Another draft built the same transaction (the same funding coin, asset, quantity and fee
      // rate) and journaled it first: its settlement owns this txid.
      if (isUniqueViolation(e)) throw new ApiError('conflict_spend', `this attach (${signed.txid}) was already submitted with another draft`);
      throw e;
    });

    const outcome = await this.ctx.journal.relay(settlementId);
    if (outcome.status !== 'relayed') throw relayOutcomeError(outcome, settlementId);
    return (await this.store.draft(d.id))!;
  }

  /**
   * The same signed attach again (a lost response is recovered this way); undefined when it is
   * not a repeat. A released settlement answers its refusal again whatever listing half comes
   * with it (the same bytes fail the same way; the draft stays `failed`). Otherwise a repeat of
   * attach-and-list must carry the listing half already stored (same bytes, same expiry), and a
   * repeat of the attach alone must not add one: a live settlement is relayed again (its outcome
   * answers, so an unknown outcome is 502 again), a confirmed one answers the draft.
   */
  private async repeat(d: DraftRow, listing: SignedListingInput | undefined): Promise<DraftRow | undefined> {
    const s = await this.ctx.journal.byTxid(this.store.db, d.attach_txid!);
    const released = s?.state === 'rejected' || s?.state === 'conflicted';
    if (listing && !released) {
      const l = d.listing_id ? await this.store.listing(d.listing_id) : undefined;
      if (!l || l.signed_psbt !== listing.psbt_hex || l.expires_at !== listing.expires_at) return undefined;
    }
    if (s && s.state !== 'confirmed') {
      const outcome = await this.ctx.journal.relay(s.id);
      if (outcome.status !== 'relayed') throw relayOutcomeError(outcome, s.id);
    }
    return (await this.store.draft(d.id))!;
  }
}

/** A new listing row; `utxoHeight` is the confirming block of a reused unit's asset UTXO. */
export function listingRow(d: DraftRow, signed: SignedListingInput, state: 'pending' | 'active', now: number, utxoHeight: number | null = null): ListingRow {
  return {
    id: newId('lst'),
    operation_id: d.operation_id,
    draft_id: d.id,
    seller: d.seller,
    asset: d.asset,
    quantity_raw: d.quantity_raw,
    utxo_txid: d.asset_txid!,
    utxo_vout: d.asset_vout!,
    utxo_outpoint: outpointKey(d.asset_txid!, d.asset_vout!),
    utxo_value_sats: d.utxo_value_sats!,
    price_sats: d.price_sats!,
    state,
    end_reason: null,
    signed_psbt: signed.psbt_hex,
    version: 1,
    expires_at: signed.expires_at,
    created_at: now,
    updated_at: now,
    activated_at: state === 'active' ? now : null,
    ended_at: null,
    utxo_height: utxoHeight,
    spent_height: null,
    exposed_at: null,
    exposure_reason: null,
    protocol_subtype: d.protocol_subtype,
    cosign_seller_key: d.protocol_subtype === 'cosigned' ? d.seller_tap_key : null,
    cosign_market_key: d.cosign_market_key,
    cosign_key_version: d.cosign_key_version,
  };
}

/** The journal's reactions for kind `attach`. */
export function attachHandlers(store: ListingStore, now: () => number): SettlementHandlers {
  return {
    onRelayed: async (tx, s) => {
      await tx.updateTable('listing_drafts').set({ status: 'awaiting_indexer', updated_at: now() }).where('id', '=', s.ref_id).where('status', '=', 'broadcasting').execute();
    },
    onReleased: async (tx, s, outcome, reason) => {
      const at = now();
      const res = await tx
        .updateTable('listing_drafts')
        .set({ status: 'failed', last_error: `attach ${outcome}: ${reason}`.slice(0, 500), updated_at: at })
        .where('id', '=', s.ref_id)
        .where('status', 'in', ['broadcasting', 'awaiting_indexer'])
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return;
      const d = await store.draft(s.ref_id, tx);
      const l = d?.listing_id ? await store.listing(d.listing_id, tx) : undefined;
      if (l) await endListing(tx, l, 'invalid', at);
    },
  };
}

export const sellerScript = (seller: string, ctx: Context) => {
  const s = addressToScript(seller, ctx.config.NETWORK);
  if (!s) throw new Error('seller address was validated');
  return s;
};
