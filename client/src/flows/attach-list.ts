/**
 * List a balance the seller holds at its address: preflight (mode attach, with an idempotency
 * key) → verify the attach and the listing half → sign the attach ALL and the half
 * SINGLE|ANYONECANPAY → attach-and-list → wait until the draft reads `completed` (the attach
 * confirmed and the indexer saw the unit credited).
 */
import { submitSigned, verifyAndSign, waitFor, type FlowContext, type WaitOptions } from '../flow.js';
import { verifyAttachDraft } from '../verify-attach.js';
import type { ListingDraft } from '../generated/api.js';
import { rebuildCosigned } from '../verify-cosigned.js';
import { marketKey } from './listing.js';

export interface AttachAndListInput {
  asset: string;
  quantity_raw?: string;
  price_sats: number;
  expires_at: number;
  idempotency_key: string;
  fee_rate?: number;
  /** The most the attach may cost in network fee (the quoted fee is the other bound). */
  maxFeeSats?: number;
  /**
   * A co-signed listing (a P2TR seller): the unit is attached straight to the output of your key
   * and the market key; `marketPubkey` pins the market key (default: read from the market).
   */
  cosigned?: { seller_tap_internal_key: string; marketPubkey?: string };
  /** Wait for `completed` (default true). */
  wait?: boolean | WaitOptions;
}

const FAILED = new Set(['failed', 'expired', 'withdrawn']);

export async function attachAndList(ctx: FlowContext, p: AttachAndListInput): Promise<ListingDraft> {
  const { http, signer, progress } = ctx;
  const quantity = p.quantity_raw ?? '1';
  const d = (await http.call('POST /v1/listing-preflights', {
    idempotent: true,
    body: {
      seller: signer.address, asset: p.asset, quantity_raw: quantity, mode: 'attach', price_sats: p.price_sats, idempotency_key: p.idempotency_key, ...(p.fee_rate ? { fee_rate: p.fee_rate } : {}),
      ...(p.cosigned ? { protocol_subtype: 'cosigned' as const, seller_tap_internal_key: p.cosigned.seller_tap_internal_key } : {}),
    },
  })).result;
  const cosigned = p.cosigned && rebuildCosigned({ seller: p.cosigned.seller_tap_internal_key, market: await marketKey(ctx, p.cosigned.marketPubkey) }, ctx.network);
  progress?.('preflight', { id: d.id });
  const { attach, listing } = await verifyAndSign(
    ctx,
    () => verifyAttachDraft(d, { seller: signer.address, asset: p.asset, quantity_raw: quantity, price_sats: p.price_sats, ...(p.maxFeeSats !== undefined ? { maxFeeSats: p.maxFeeSats } : {}), ...(ctx.network ? { network: ctx.network } : {}), ...(cosigned ? { cosigned } : {}) }),
    async (w) => ({
      attach: await w.signPsbt(d.attach!.psbt_hex, d.attach!.signers[0]!.inputs_to_sign, 'ALL'),
      listing: await w.signPsbt(d.listing!.psbt_hex, d.listing!.inputs_to_sign, 'SINGLE|ANYONECANPAY'),
    }),
  );
  const read = async () => (await http.call('GET /v1/listing-preflights/{id}', { params: { id: d.id } })).result;
  const body = { attach_psbt_hex: attach, listing_psbt_hex: listing, expires_at: p.expires_at };
  const submitted = await submitSigned(
    ctx,
    // Sent once: on an uncertain outcome the draft is read before anything is resent.
    async () => (await http.call('POST /v1/listing-preflights/{id}/attach-and-list', { params: { id: d.id }, body })).result,
    async () => {
      const now = await read();
      return now.status === 'awaiting_attach_signature' ? undefined : now;
    },
    { draft_id: d.id, ...body },
  );
  progress?.('submitted', { status: submitted.status, listing_id: submitted.listing_id });
  if (p.wait === false) return submitted;
  const w = typeof p.wait === 'object' ? p.wait : {};
  return waitFor(read, (x) => (x.status === 'completed' ? 'done' : FAILED.has(x.status) ? 'failed' : 'pending'), { ...w, ...(progress ? { progress } : {}), what: `listing draft ${d.id}` });
}
