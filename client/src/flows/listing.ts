/**
 * The seller's flows over a unit already attached:
 * - list (`mode: reuse`): preflight with an idempotency key → continue from the draft's
 *   `next_action` (a draft met again, e.g. on a retry, is read, not re-signed: already listed
 *   returns its listing; waiting for the indexer waits; only `sign_listing` asks the wallet) →
 *   verify the half → sign SINGLE|ANYONECANPAY → submit;
 * - rotate: the move of an exposed listing's unit to a fresh output of the seller's own, which
 *   voids the broadcast half → verify → sign ALL → submit (the same bytes may be resent);
 * - withdrawCosigned: a co-signed unit taken back by the key path → verify → sign → finalized
 *   transaction for the wallet to broadcast (the market relays nothing).
 */
import { MarketError } from '../errors.js';
import { submitResendable, submitSigned, verifyAndSign, waitFor, type FlowContext, type WaitOptions } from '../flow.js';
import { verifyListingPsbt } from '../verify.js';
import { verifyRotation, verifyWithdrawal } from '../verify-moves.js';
import { checkCosignedOutput, checkLeafHalf, rebuildCosigned } from '../verify-cosigned.js';
import { finalizeSigned, readPsbt, prevScriptHex } from '../psbt.js';
import type { ListingDraft, Outpoint } from '../generated/api.js';

const opt = <T>(k: string, v: T | undefined) => (v === undefined ? {} : { [k]: v });

/** An outpoint as the API takes it: inventory's `asset_utxo` carries its value too, which a write does not take. */
const outpoint = (o: Outpoint): Outpoint => ({ txid: o.txid, vout: o.vout });

export interface ListInput {
  /** The attached unit to list (inventory's `asset_utxo`). */
  asset_utxo: Outpoint;
  asset: string;
  price_sats: number;
  expires_at: number;
  idempotency_key: string;
  /** A co-signed listing: the seller's x-only key (hex), a P2TR seller's internal key. */
  cosigned?: { seller_tap_internal_key: string; marketPubkey?: string };
  /** How to wait when the draft waits for the indexer (default: poll every 10 s up to 15 min). */
  wait?: WaitOptions;
}

export interface Listed {
  id: string;
  state: string;
  preflight_id: string;
  /** False when the draft already carried this listing (nothing was signed). */
  signed: boolean;
}

/** The market signer's current key (x-only hex), read from GET /v1/market-signer unless pinned. */
export async function marketKey(ctx: FlowContext, pinned?: string): Promise<string> {
  return pinned ?? (await ctx.http.call('GET /v1/market-signer', {})).result.current.pubkey;
}

export async function list(ctx: FlowContext, p: ListInput): Promise<Listed> {
  const { http, signer, progress } = ctx;
  const cosigned = p.cosigned && rebuildCosigned({ seller: p.cosigned.seller_tap_internal_key, market: await marketKey(ctx, p.cosigned.marketPubkey) }, ctx.network);
  let d: ListingDraft = (await http.call('POST /v1/listing-preflights', {
    idempotent: true,
    body: {
      seller: signer.address, asset: p.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: outpoint(p.asset_utxo), price_sats: p.price_sats, idempotency_key: p.idempotency_key,
      ...(p.cosigned ? { protocol_subtype: 'cosigned' as const, seller_tap_internal_key: p.cosigned.seller_tap_internal_key } : {}),
    },
  })).result;
  progress?.('preflight', { id: d.id, next_action: d.next_action });
  const read = async () => (await http.call('GET /v1/listing-preflights/{id}', { params: { id: d.id } })).result;
  const listed = (x: ListingDraft): Listed | undefined => (x.listing_id ? { id: x.listing_id, state: x.listing_status!, preflight_id: x.id, signed: false } : undefined);
  if (d.next_action === 'wait_for_indexer') d = await waitFor(read, (x) => (x.next_action === 'wait_for_indexer' ? 'pending' : 'done'), { ...p.wait, ...opt('progress', progress), what: `listing draft ${d.id}` });
  const already = listed(d);
  if (already) {
    progress?.('already_listed', { listing_id: already.id });
    return already;
  }
  if (d.next_action !== 'sign_listing' || !d.listing) throw new MarketError('operation_failed', `listing draft ${d.id} is ${d.status} (next_action ${d.next_action}): nothing to sign`, null, { draft: d });
  const t = d.listing;
  if (cosigned) checkCosignedOutput(d.cosigned_output, cosigned);
  const verify = () => {
    const tx = verifyListingPsbt(t.psbt_hex, t.inputs_to_sign, { seller: signer.address, unit: p.asset_utxo, price_sats: p.price_sats, ...opt('network', ctx.network), ...opt('unitScriptHex', cosigned?.scriptHex) });
    if (cosigned) checkLeafHalf(tx, cosigned);
  };
  const signed = await verifyAndSign(ctx, verify, (w) => w.signPsbt(t.psbt_hex, t.inputs_to_sign, 'SINGLE|ANYONECANPAY'));
  const draftId = d.id;
  const body = { psbt_hex: signed, expires_at: p.expires_at };
  return submitSigned(
    ctx,
    async () => {
      const l = (await http.call('POST /v1/listing-preflights/{id}/listing', { params: { id: draftId }, body, idempotent: true })).result;
      return { id: l.id, state: l.state, preflight_id: draftId, signed: true };
    },
    async () => listed(await read()),
    { draft_id: draftId, ...body },
  );
}

/** The seller's units known to carry a balance (attached): a move must not spend one as a fee coin. */
async function carrying(ctx: FlowContext): Promise<Outpoint[]> {
  return (await ctx.http.call('GET /v1/inventory/prepared', {})).result.map((u) => ({ txid: u.asset_utxo.txid, vout: u.asset_utxo.vout }));
}

export interface RotateInput {
  listing_id: string;
  /** The exposed listing's unit, as the seller knows it. */
  asset_utxo: Outpoint;
  fee_rate?: number;
  maxFeeSats?: number;
}

export async function rotate(ctx: FlowContext, p: RotateInput) {
  const { http, signer, progress } = ctx;
  const t = (await http.call('POST /v1/listings/{id}/rotation', { params: { id: p.listing_id }, body: { ...opt('fee_rate', p.fee_rate) } })).result;
  progress?.('rotation_quoted', { txid: t.expected_txid });
  const others = (await carrying(ctx)).filter((c) => c.txid !== p.asset_utxo.txid || c.vout !== p.asset_utxo.vout);
  const signed = await verifyAndSign(
    ctx,
    () => verifyRotation(t, { owner: signer.address, unit: p.asset_utxo, carrying: others, ...opt('maxFeeSats', p.maxFeeSats), ...opt('network', ctx.network) }),
    (w) => w.signPsbt(t.psbt_hex, t.inputs_to_sign, 'ALL'),
  );
  const body = { psbt_hex: signed };
  const send = async () => (await http.call('POST /v1/listings/{id}/rotation/signed', { params: { id: p.listing_id }, body, idempotent: true })).result;
  return submitResendable(ctx, send, { listing_id: p.listing_id, ...body }, 'broadcast', (sent) => ({ txid: sent.txid }));
}

export interface WithdrawInput {
  /** The co-signed unit to take back. */
  asset_utxo: Outpoint;
  /** The seller's x-only key (hex) the co-signed output was made with. */
  seller_tap_internal_key: string;
  fee_rate?: number;
  maxFeeSats?: number;
}

export async function withdrawCosigned(ctx: FlowContext, p: WithdrawInput) {
  const { http, signer, progress } = ctx;
  const w = (await http.call('POST /v1/inventory/cosigned-withdrawals', { body: { asset_utxo: outpoint(p.asset_utxo), ...opt('fee_rate', p.fee_rate) } })).result;
  progress?.('withdrawal_quoted', { txid: w.expected_txid });
  // The output may predate a rotation of the market key: rebuild it with each key the signer has had.
  const prev = prevScriptHex(readPsbt(w.psbt_hex), 0);
  const keys = (await http.call('GET /v1/market-signer', {})).result.keys.map((k) => k.pubkey);
  const cosigned = keys.map((market) => rebuildCosigned({ seller: p.seller_tap_internal_key, market }, ctx.network)).find((c) => c.scriptHex === prev) ?? rebuildCosigned({ seller: p.seller_tap_internal_key, market: keys[0]! }, ctx.network);
  const others = (await carrying(ctx)).filter((c) => c.txid !== p.asset_utxo.txid || c.vout !== p.asset_utxo.vout);
  return verifyAndSign(
    ctx,
    () => verifyWithdrawal(w, { owner: signer.address, unit: p.asset_utxo, cosigned, sellerKey: p.seller_tap_internal_key, carrying: others, ...opt('maxFeeSats', p.maxFeeSats), ...opt('network', ctx.network) }),
    async (wallet) => finalizeSigned(await wallet.signPsbt(w.psbt_hex, w.inputs_to_sign, 'DEFAULT')),
    (out) => ({ txid: out.txid }),
  );
}

export interface RepriceInput {
  listing_id: string;
  /** The listing's unit, as the seller knows it. */
  asset_utxo: Outpoint;
  price_sats: number;
}

/** Reprice an open listing: a fresh half at the new price (batch preflight) → verify → sign SINGLE|ANYONECANPAY → reprice. */
export async function reprice(ctx: FlowContext, p: RepriceInput) {
  const { http, signer } = ctx;
  const [t] = (await http.call('POST /v1/listings/batch', { body: { action: 'reprice_preflight', listings: [{ listing_id: p.listing_id, price_sats: p.price_sats }] } })).result.listings as Array<{ listing: { psbt_hex: string; inputs_to_sign: number[] } }>;
  if (!t) throw new MarketError('invalid_response', 'the reprice preflight answered no template', 200);
  const signed = await verifyAndSign(
    ctx,
    () => verifyListingPsbt(t.listing.psbt_hex, t.listing.inputs_to_sign, { seller: signer.address, unit: p.asset_utxo, price_sats: p.price_sats, ...opt('network', ctx.network) }),
    (w) => w.signPsbt(t.listing.psbt_hex, t.listing.inputs_to_sign, 'SINGLE|ANYONECANPAY'),
  );
  return (await http.call('POST /v1/listings/{id}/reprice', { params: { id: p.listing_id }, body: { psbt_hex: signed }, idempotent: true })).result;
}
