/**
 * Collection (policy) offers as steps:
 * - placeCollectionOffer: preflight → verify the parent and every child template → sign the
 *   parent's funding inputs and pre-sign each template (SINGLE|ANYONECANPAY over the accept leaf)
 *   → place (an identical placement is idempotent);
 * - acceptCollectionOffer: the seller's accept preflight → verify → sign input 1 → accept (202:
 *   recovery is still relaying the journaled package);
 * - cancelCollectionOffer: the soft cancel of one alternative (or of each), a message signature over the parent txid;
 * - hardCancelCollectionOffer: the self-send of the funding inputs, verified and signed, to broadcast.
 */
import { submitResendable, verifyAndSign, type FlowContext, type WalletSigner } from '../flow.js';
import { verifyPolicyAccept, verifyPolicyPreflight } from '../verify-policy.js';
import { verifyCancelTransaction } from '../verify-moves.js';
import { finalizeSigned } from '../psbt.js';
import type { Outpoint, Routes } from '../generated/api.js';

type Body<K extends keyof Routes> = Routes[K] extends { body: infer B } ? B : never;
export type PolicyTarget = Body<'POST /v1/policy-offers/preflight'>['targets'][number];

const opt = <T>(k: string, v: T | undefined) => (v === undefined ? {} : { [k]: v });

export interface PlaceCollectionOfferInput {
  targets: PolicyTarget[];
  /** The wallet's x-only public key (hex): the escrow's bidder key. */
  bidder_pubkey: string;
  expires_at: number;
  delivery_address?: string;
  fee_rate?: number;
  maxFeeSats?: number;
  marketPubkey?: string;
}

export async function placeCollectionOffer(ctx: FlowContext, p: PlaceCollectionOfferInput) {
  const { http, signer, progress } = ctx;
  const pf = (await http.call('POST /v1/policy-offers/preflight', {
    body: { targets: p.targets, bidder_pubkey: p.bidder_pubkey, expires_at: p.expires_at, ...opt('delivery_address', p.delivery_address), ...opt('fee_rate', p.fee_rate) },
  })).result;
  progress?.('preflight', { funding_set_id: pf.funding_set_id });
  const verify = () =>
    verifyPolicyPreflight(pf, {
      bidder: signer.address,
      bidderPubkey: p.bidder_pubkey,
      delivery_address: p.delivery_address ?? signer.address,
      prices: p.targets.map((t) => t.price_sats),
      ...opt('marketPubkey', p.marketPubkey),
      ...opt('maxFeeSats', p.maxFeeSats),
      ...opt('network', ctx.network),
    });
  const sign = async (w: WalletSigner) => {
    const parent = await w.signPsbt(pf.parent.psbt_hex, pf.parent.signing.inputs_to_sign, pf.parent.signing.sighash);
    const presignatures = [];
    for (const a of pf.alternatives) presignatures.push({ index: a.index, psbt_hex: await w.signPsbt(a.child_template.psbt_hex, [0], 'SINGLE|ANYONECANPAY') });
    return { parent, presignatures };
  };
  const { parent, presignatures } = await verifyAndSign(ctx, verify, sign, (s) => ({ presignatures: s.presignatures.length }));
  const body = { funding_set_id: pf.funding_set_id, parent_psbt_hex: parent, presignatures };
  return submitResendable(ctx, async () => (await http.call('POST /v1/policy-offers', { body, idempotent: true })).result, body, 'placed', (placed) => ({ parent_txid: placed.parent_txid }));
}

export interface AcceptCollectionOfferInput {
  parent_txid: string;
  /** The unit sold into the offer. */
  asset_utxo: Outpoint;
  fee_rate?: number;
  /** Sent to the market and checked before signing: the least the seller nets. */
  seller_min_net_sats?: number;
  seller_tap_internal_key?: string;
}

export async function acceptCollectionOffer(ctx: FlowContext, p: AcceptCollectionOfferInput) {
  const { http, signer, progress } = ctx;
  const q = (await http.call('POST /v1/policy-accepts/preflight', {
    body: { parent_txid: p.parent_txid, asset_txid: p.asset_utxo.txid, asset_vout: p.asset_utxo.vout, ...opt('fee_rate', p.fee_rate), ...opt('seller_min_net_sats', p.seller_min_net_sats), ...opt('seller_tap_internal_key', p.seller_tap_internal_key) },
  })).result;
  progress?.('accept_quoted', { accept_id: q.accept_id });
  const signed = await verifyAndSign(
    ctx,
    () => verifyPolicyAccept(q, { seller: signer.address, outpoint: p.asset_utxo, parent_txid: p.parent_txid, ...opt('minNetSats', p.seller_min_net_sats), ...opt('network', ctx.network) }),
    (w) => w.signPsbt(q.psbt_hex, q.signing.inputs_to_sign, q.signing.sighash),
  );
  const body = { accept_id: q.accept_id, psbt_hex: signed };
  // The same signed bytes answer the same co-signature: resending them is safe.
  return submitResendable(ctx, async () => (await http.call('POST /v1/policy-accepts', { body, idempotent: true })).result, body, 'accepted', (done) => ({ txid: done.txid }));
}

/**
 * The placement as `placeCollectionOffer` returned it, with `offer_id` to cancel one alternative.
 * One of the two is required, and the type says so: a caller that kept only the set's ids (the
 * simulator did, and every soft cancel it tried was refused) is refused by the compiler, not at run time.
 */
export type CancelCollectionOfferInput = { funding_set_id: string; parent_txid: string } & (
  | { offer_id: string; offers?: Array<{ id: string }> }
  | { offer_id?: undefined; offers: Array<{ id: string }> }
);

/**
 * Soft cancel: the market signer refuses an alternative from then on (a hard cancel spends the
 * funding). `offer_id` names one alternative; without it every alternative of the placement
 * (`offers`) is cancelled, one after another, with the one signature over the parent.
 */
export async function cancelCollectionOffer(ctx: FlowContext, set: CancelCollectionOfferInput) {
  const ids = set.offer_id ? [set.offer_id] : (set.offers ?? []).map((o) => o.id);
  // The message names the parent (the specification's text): one signature serves every alternative of it.
  const signature = await ctx.signer.signMessage(`counterparty-marketplace policy-offer cancel\n${set.parent_txid}`);
  ctx.progress?.('signed');
  let last: Routes['POST /v1/policy-offers/{id}/cancel']['response']['result'] | undefined;
  for (const id of ids) {
    last = (await ctx.http.call('POST /v1/policy-offers/{id}/cancel', { params: { id }, body: { address: ctx.signer.address, signature } })).result;
    ctx.progress?.('cancelled', { offer_id: id, already_signed: last.already_signed });
  }
  // The last answer carries funding_cancelled for the whole set.
  return last!;
}

export interface HardCancelInput {
  /** The funding set (pf_…) or one of its offers (po_…). */
  id: string;
  fee_rate?: number;
  maxFeeSats?: number;
}

/**
 * Hard cancel: the self-send of every still-unspent funding input → verify (only the offer's
 * funding inputs, your own, everything back to you in one output, fee within the quote and the
 * bound) → sign → the finalized transaction, for the wallet to broadcast (the market relays
 * nothing). Once it is mined every alternative of the set is dead on chain.
 */
export async function hardCancelCollectionOffer(ctx: FlowContext, p: HardCancelInput) {
  const { http, signer, progress } = ctx;
  const c = (await http.call('POST /v1/policy-offers/{id}/cancel-transaction', { params: { id: p.id }, body: { ...opt('fee_rate', p.fee_rate) } })).result;
  progress?.('cancel_quoted', { txid: c.expected_txid });
  const out = await verifyAndSign(
    ctx,
    () => verifyCancelTransaction(c, { owner: signer.address, ...opt('maxFeeSats', p.maxFeeSats), ...opt('network', ctx.network) }),
    async (w) => finalizeSigned(await w.signPsbt(c.psbt_hex, c.signing.inputs_to_sign, c.signing.sighash)),
    (o) => ({ txid: o.txid }),
  );
  return { ...out, parent_txid: c.parent_txid };
}
