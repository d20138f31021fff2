/**
 * The bid side as steps, each PSBT checked before the wallet signs it (verify-offers.ts):
 * - placeBids: offer funding → verify → sign ALL → finalize → funded offers (the same bytes may be
 *   sent again: a relay failure places nothing);
 * - authorizeExact: the bidder's exact authorization of one offer over one unit → verify → sign
 *   input 0 → activate;
 * - acceptExact: the seller's accept preflight → verify parent (and CPFP child) → sign → accept;
 * - counter (seller) and takeCounter (bidder: a bid at the counter price naming the unit, which
 *   consumes the original offer, then its authorization).
 */
import { submitResendable, verifyAndSign, type FlowContext } from '../flow.js';
import { verifyAccept, verifyAuthorization, verifyFunding } from '../verify-offers.js';
import { templateMismatch } from '../errors.js';
import { finalizeSigned } from '../psbt.js';
import type { Outpoint, Routes } from '../generated/api.js';

type Body<K extends keyof Routes> = Routes[K] extends { body: infer B } ? B : never;
type Result<K extends keyof Routes> = Routes[K]['response'] extends { result: infer R } ? R : never;
export type Placement = Result<'POST /v1/funded-offers'>;
export type OfferTarget = Body<'POST /v1/funded-offers'>['targets'][number];
export type Counter = Result<'POST /v1/offers/{id}/counters'>;

export interface PlaceBidsInput {
  price_sats: number;
  slots: number;
  targets: OfferTarget[];
  expires_at: number;
  delivery_mode?: 'detached' | 'attached';
  receive_address?: string;
  fee_rate?: number;
  /** The most the funding may cost in network fee (the quoted fee is the other bound). */
  maxFeeSats?: number;
}

const opt = <T>(k: string, v: T | undefined) => (v === undefined ? {} : { [k]: v });
const net = (ctx: FlowContext) => opt('network', ctx.network);

export async function placeBids(ctx: FlowContext, p: PlaceBidsInput): Promise<Placement> {
  const { http, signer, progress } = ctx;
  const mode = p.delivery_mode ?? 'detached';
  const f = (await http.call('POST /v1/offer-funding', { body: { price_sats: p.price_sats, slots: p.slots, delivery_mode: mode, ...opt('fee_rate', p.fee_rate) } })).result;
  progress?.('funding_quoted', { txid: f.expected_txid });
  const raw = await verifyAndSign(
    ctx,
    () => verifyFunding(f, { bidder: signer.address, price_sats: p.price_sats, slots: p.slots, delivery_mode: mode, ...opt('maxFeeSats', p.maxFeeSats), ...net(ctx) }),
    async (w) => finalizeSigned(await w.signPsbt(f.psbt_hex, f.inputs_to_sign, 'ALL')).tx_hex,
  );
  const body = { funding_tx_hex: raw, bids: f.bids, targets: p.targets, expires_at: p.expires_at, delivery_mode: mode, ...opt('receive_address', p.receive_address) };
  return submitResendable(ctx, async () => (await http.call('POST /v1/funded-offers', { body, idempotent: true })).result, body, 'placed', (placed) => ({ placement_id: placed.placement_id }));
}

export interface AuthorizeInput {
  offer_id: string;
  /** The offer's slot and terms, as its placement returned them. */
  slot: Outpoint;
  price_sats: number;
  delivery_mode: 'detached' | 'attached';
  delivery_address: string;
  /** The unit the offer buys. */
  target_outpoint: Outpoint;
  fee_rate?: number;
  maxFeeSats?: number;
}

/**
 * Only the outpoint of a unit: an `asset_utxo` as inventory returns it also carries its
 * `utxo_value_sats`, which the offer routes do not take (a bot passes the inventory row's object).
 */
const outpointOf = (o: Outpoint): Outpoint => ({ txid: o.txid, vout: o.vout });

export async function authorizeExact(ctx: FlowContext, p: AuthorizeInput) {
  const { http, signer, progress } = ctx;
  const [a] = (await http.call('POST /v1/offers/{id}/exact-authorizations', { params: { id: p.offer_id }, body: { outpoints: [outpointOf(p.target_outpoint)], ...opt('fee_rate', p.fee_rate) } })).result;
  if (!a) throw templateMismatch('no authorization came back for the unit asked');
  progress?.('authorization_quoted', { authorization_id: a.authorization_id });
  const signed = await verifyAndSign(
    ctx,
    () => verifyAuthorization(a, { bidder: signer.address, slot: p.slot, price_sats: p.price_sats, delivery: { mode: p.delivery_mode, address: p.delivery_address }, outpoint: p.target_outpoint, ...opt('maxFeeSats', p.maxFeeSats), ...net(ctx) }),
    (w) => w.signPsbt(a.psbt_hex!, a.inputs_to_sign, 'ALL'),
  );
  const body = { psbt_hex: signed };
  const send = async () => (await http.call('POST /v1/exact-offer-authorizations/{id}/bidder-psbt', { params: { id: a.authorization_id }, body, idempotent: true })).result;
  return submitResendable(ctx, send, { authorization_id: a.authorization_id, ...body }, 'active', (active) => ({ authorization_id: active.authorization_id }));
}

export interface AcceptInput {
  authorization_id: string;
  /** From the seller inbox row: the unit and the price. */
  target_outpoint: Outpoint;
  price_sats: number;
  fee_rate?: number;
  /** Refused before signing when the seller would net less. */
  seller_min_net_sats?: number;
}

export async function acceptExact(ctx: FlowContext, p: AcceptInput) {
  const { http, signer, progress } = ctx;
  const q = (await http.call('POST /v1/exact-offer-authorizations/{id}/accept-preflight', { params: { id: p.authorization_id }, body: { ...opt('fee_rate', p.fee_rate) } })).result;
  progress?.('accept_quoted', { requires_cpfp: q.requires_cpfp });
  const { parent, child } = await verifyAndSign(
    ctx,
    () => verifyAccept(q, { seller: signer.address, outpoint: p.target_outpoint, price_sats: p.price_sats, ...opt('minNetSats', p.seller_min_net_sats), ...net(ctx) }),
    async (w) => ({ parent: await w.signPsbt(q.psbt_hex, q.inputs_to_sign, 'ALL'), child: q.cpfp ? await w.signPsbt(q.cpfp.psbt_hex, q.cpfp.inputs_to_sign, 'ALL') : undefined }),
  );
  const body = { psbt_hex: parent, ...opt('cpfp_psbt_hex', child) };
  // Identical signed bytes are idempotent (`already_completed`): an uncertain outcome is resent, never re-signed.
  const send = async () => (await http.call('POST /v1/exact-offer-authorizations/{id}/accept', { params: { id: p.authorization_id }, body, idempotent: true })).result;
  return submitResendable(ctx, send, { authorization_id: p.authorization_id, ...body }, 'accepted', (done) => ({ txid: done.txid, child_txid: done.child_txid }));
}

export interface CounterInput {
  offer_id: string;
  asset_outpoint: Outpoint;
  price_sats: number;
  expires_at: number;
}

export async function counter(ctx: FlowContext, p: CounterInput): Promise<Counter> {
  const c = (await ctx.http.call('POST /v1/offers/{id}/counters', { params: { id: p.offer_id }, body: { asset_outpoint: outpointOf(p.asset_outpoint), price_sats: p.price_sats, expires_at: p.expires_at } })).result;
  ctx.progress?.('countered', { counter_id: c.id });
  return c;
}

/** Take a counter: one slot at the counter price naming its unit (the original offer is consumed), then its authorization. */
export type TakeCounterInput = Omit<PlaceBidsInput, 'price_sats' | 'slots' | 'targets'> & { maxAuthorizationFeeSats?: number };

export async function takeCounter(ctx: FlowContext, c: Counter, p: TakeCounterInput) {
  const placed = await placeBids(ctx, { ...p, price_sats: c.price_sats, slots: 1, targets: [{ scope: 'asset', asset: c.asset, target_outpoint: c.target_outpoint }] });
  const slot = placed.funding_slots[0]!;
  const authorization = await authorizeExact(ctx, {
    offer_id: slot.offer_ids[0]!,
    slot: { txid: slot.txid, vout: slot.vout },
    price_sats: c.price_sats,
    delivery_mode: placed.delivery.mode as 'detached' | 'attached',
    delivery_address: placed.delivery.address,
    target_outpoint: c.target_outpoint,
    ...opt('fee_rate', p.fee_rate),
    ...opt('maxFeeSats', p.maxAuthorizationFeeSats),
  });
  return { placement: placed, authorization };
}
