/**
 * Prepare a unit without listing it: an attach template (the unit attached to a fresh 330-sat
 * output of the wallet's own) → verify the attach → sign ALL → submit. And a listing draft made
 * without a price gets one (`priceDraft`), its listing half then shown for the usual checks.
 */
import { submitSigned, verifyAndSign, type FlowContext } from '../flow.js';
import { verifyAttachPsbt } from '../verify-attach.js';
import type { ListingDraft } from '../generated/api.js';

export interface PrepareInput {
  asset: string;
  quantity_raw?: string;
  fee_rate?: number;
  /** The most the attach may cost in network fee (the quoted fee is the other bound). */
  maxFeeSats?: number;
  idempotency_key?: string;
}

export async function prepareUnit(ctx: FlowContext, p: PrepareInput): Promise<ListingDraft> {
  const { http, signer, progress } = ctx;
  const quantity = p.quantity_raw ?? '1';
  const d = (await http.call('POST /v1/attach-templates', {
    body: { utxo_owner: signer.address, asset: p.asset, quantity_raw: quantity, ...(p.fee_rate ? { fee_rate: p.fee_rate } : {}), ...(p.idempotency_key ? { idempotency_key: p.idempotency_key } : {}) },
  })).result;
  progress?.('template', { id: d.id });
  const psbt = await verifyAndSign(
    ctx,
    () => verifyAttachPsbt(d, { seller: signer.address, asset: p.asset, quantity_raw: quantity, ...(p.maxFeeSats !== undefined ? { maxFeeSats: p.maxFeeSats } : {}), ...(ctx.network ? { network: ctx.network } : {}) }),
    (w) => w.signPsbt(d.attach!.psbt_hex, d.attach!.signers[0]!.inputs_to_sign, 'ALL'),
  );
  const submitted = await submitSigned(
    ctx,
    // Sent once: on an uncertain outcome the draft is read before anything is resent.
    async () => (await http.call('POST /v1/listing-preflights/{id}/attach', { params: { id: d.id }, body: { psbt_hex: psbt } })).result,
    async () => {
      const now = (await http.call('GET /v1/listing-preflights/{id}', { params: { id: d.id } })).result;
      return now.status === 'awaiting_attach_signature' ? undefined : now;
    },
    { draft_id: d.id, psbt_hex: psbt },
  );
  progress?.('submitted', { status: submitted.status });
  return submitted;
}

export async function priceDraft(ctx: FlowContext, id: string, price_sats: number): Promise<ListingDraft> {
  return (await ctx.http.call('POST /v1/listing-preflights/{id}/price', { params: { id }, body: { price_sats } })).result;
}
