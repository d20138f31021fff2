/**
 * A bidder asks for exact authorizations of one of its live offers over 1–100 asset outpoints:
 * each must match the offer's target (the one policy predicate), hold exactly one whole unit of
 * its asset, have 3 confirmations, be a SegWit output (its holder signs input 1), and not be the
 * bidder's own. A unit on a co-signed listing output is its seller's: the parent spends it by the
 * leaf (compose.ts) and pays the proceeds to the seller's own address. For each the market composes the parent (compose.ts) at the given fee rate;
 * the bidder signs input 0 and activates it with /bidder-psbt.
 */
import crypto from 'node:crypto';
import { hex } from '@scure/base';
import { equalBytes } from '@noble/curves/utils.js';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, notFound } from '../../http/errors.js';
import { addressToScript, scriptFamily, scriptToAddress } from '../../bitcoin/address.js';
import type { InputSpend } from '../../bitcoin/vsize.js';
import { FINALITY_DEPTH } from '../transactions/index.js';
import { assetMatches, normalizeTarget, oneUnitRaw } from '../market/index.js';
import { assetMemberships } from '../market/index.js';
import { marketFeeScript } from '../../trade/fee-address.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { offerStatus } from '../offers/index.js';
import type { OfferRow } from '../offers/index.js';
import { buildParent, feeFor, parentVsize, type ParentShape } from './compose.js';
import { createAuthorizations } from '../offers/index.js';
import type { ExactOfferTables } from '../offers/index.js';
import { cosignedUnitAt } from '../listings/index.js';
import { COSIGNED_LEAF_SPEND } from '../../counterparty/cosigned-listing.js';

export const MAX_AUTHORIZATION_OUTPOINTS = 100;
/** An authorization's market expiry: at most the offer's, and at most 30 days. */
export const MAX_AUTHORIZATION_TTL_S = 30 * 24 * 60 * 60;

type AuthRow = ExactOfferTables['exact_authorizations'];

const spendOf = (script: Uint8Array): InputSpend | null => {
  const f = scriptFamily(script);
  return f === 'p2wpkh' ? 'p2wpkh' : f === 'p2tr' ? 'p2tr-key-explicit' : null;
};

export const newAuthorizationId = () => `ea_${crypto.randomBytes(12).toString('hex')}`;

/** What a unit refused for looks like in the answer: the batch is all or nothing. */
const unavailable = (i: number, key: string, why: string) =>
  new ApiError('target_unavailable', `outpoints[${i}] ${key}: ${why}`, { outpoint_index: i, outpoint: key });

export async function authorize(ctx: Context, bidder: string, offerId: string, body: { outpoints: Array<{ txid: string; vout: number }>; fee_rate?: number; expires_at?: number }) {
  const db = ctx.store.db;
  const now = nowSeconds(ctx.clock);
  const offer = await db.selectFrom('offers').selectAll().where('id', '=', offerId).executeTakeFirst();
  if (!offer || offer.bidder !== bidder) throw notFound('offer');
  if (offerStatus(offer, now) !== 'active') throw new ApiError('state_changed', `the offer is ${offerStatus(offer, now)}`, { offer_id: offer.id });
  const slot = await db.selectFrom('offer_slots').selectAll().where('id', '=', offer.slot_id).executeTakeFirstOrThrow();
  const keys = body.outpoints.map((o) => `${o.txid}:${o.vout}`);
  if (new Set(keys).size !== keys.length) throw new ApiError('invalid_request', 'outpoints repeats an outpoint', { field: 'body.outpoints' });
  const expiresAt = Math.min(offer.expires_at, body.expires_at ?? now + MAX_AUTHORIZATION_TTL_S, now + MAX_AUTHORIZATION_TTL_S);
  if (expiresAt <= now) throw new ApiError('invalid_request', 'body.expires_at must be in the future', { field: 'body.expires_at' });

  const slotOut = await ctx.chain.bitcoin.getTxOut(slot.txid, slot.vout, true);
  if (!slotOut) throw new ApiError('state_changed', `the offer's funding output ${slot.outpoint} is spent`, { outpoint: slot.outpoint });
  const slotScript = hex.decode(slotOut.script_hex);
  const slotSpend = spendOf(slotScript);
  if (!slotSpend) throw new ApiError('unsupported_address_type', 'the funding output is not P2WPKH or P2TR');
  const feeRate = body.fee_rate ?? (await defaultFeeRate(ctx));
  const feeScript = marketFeeScript(ctx.config);
  const delivery = {
    mode: offer.delivery_mode,
    address: offer.receive_address,
    script: offer.delivery_mode === 'attached' ? (addressToScript(offer.receive_address, ctx.config.NETWORK) ?? null) : null,
  };

  const rows: AuthRow[] = [];
  for (const [i, op] of body.outpoints.entries()) {
    const key = keys[i]!;
    if (key === slot.outpoint) throw unavailable(i, key, 'is the offer\'s own funding output');
    if (offer.target_txid !== null && key !== `${offer.target_txid}:${offer.target_vout}`) throw unavailable(i, key, 'is not the exact unit this offer names');
    const [out, balances] = await Promise.all([ctx.chain.bitcoin.getTxOut(op.txid, op.vout, false), ctx.chain.counterparty.getUtxoBalances(key)]);
    if (!out) throw unavailable(i, key, 'is not an unspent confirmed output');
    if (out.confirmations < FINALITY_DEPTH) throw unavailable(i, key, `has ${out.confirmations} confirmations; an exact offer needs ${FINALITY_DEPTH}`);
    const held = balances.filter((b) => BigInt(b.quantity_raw) > 0n);
    if (held.length !== 1) throw unavailable(i, key, 'does not hold exactly one asset');
    const asset = held[0]!.asset;
    const info = await ctx.chain.counterparty.getAsset(asset);
    if (!info || held[0]!.quantity_raw !== oneUnitRaw(info.divisible)) throw unavailable(i, key, 'does not hold exactly one whole unit');
    if (!(await offerReaches(ctx, offer, asset))) {
      throw unavailable(i, key, `${asset} does not match the offer's target`);
    }
    const assetScript = hex.decode(out.script_hex);
    // A unit on a co-signed listing output is the seller's (its internal key) and is spent by its
    // leaf, which the market signer co-signs at accept; the proceeds go to the seller's address.
    const cosigned = await cosignedUnitAt(db, key, ctx.config.NETWORK);
    if (cosigned && !equalBytes(cosigned.output.script, assetScript)) throw new Error(`${key}: the co-signed draft names another output`);
    const assetSpend = cosigned ? COSIGNED_LEAF_SPEND : spendOf(assetScript);
    const seller = cosigned ? cosigned.seller : scriptToAddress(assetScript, ctx.config.NETWORK);
    if (!assetSpend || !seller) throw unavailable(i, key, 'is not a P2WPKH or P2TR output (its holder could not sign the accept)');
    if (seller === bidder) throw new ApiError('self_trade', `outpoints[${i}] ${key} is the bidder's own unit`, { outpoint_index: i, outpoint: key });

    const shape: ParentShape = {
      slot: { txid: slot.txid, vout: slot.vout, value: Number(slot.value_sats), script: slotScript, spend: slotSpend },
      asset: { txid: op.txid, vout: op.vout, value: out.value_sats, script: assetScript, spend: assetSpend, cosigned: cosigned?.output ?? null },
      delivery,
      sellerScript: cosigned ? addressToScript(seller, ctx.config.NETWORK)! : assetScript,
      feeScript,
      platformFee: Number(offer.platform_fee_sats),
      network: ctx.config.NETWORK,
    };
    const vsize = parentVsize(shape);
    const fee = feeFor(vsize, feeRate);
    const parent = buildParent(shape, fee);
    if (parent.proceeds < 330) throw new ApiError('price_below_minimum', `the offer of ${offer.price_sats} sats does not cover the platform fee and a network fee of ${fee} sats`, { outpoint: key });
    rows.push({
      id: newAuthorizationId(),
      offer_id: offer.id,
      slot_id: slot.id,
      bidder,
      seller,
      asset,
      quantity_raw: held[0]!.quantity_raw,
      asset_txid: op.txid,
      asset_vout: op.vout,
      asset_outpoint: key,
      asset_value_sats: out.value_sats,
      slot_outpoint: slot.outpoint,
      price_sats: Number(offer.price_sats),
      platform_fee_sats: Number(offer.platform_fee_sats),
      prefunded_fee_sats: fee,
      fee_rate: feeRate,
      seller_proceeds_sats: parent.proceeds,
      delivery_mode: offer.delivery_mode,
      receive_address: offer.receive_address,
      offer_scope: offer.scope,
      psbt: parent.psbt_hex,
      parent_txid: parent.txid,
      parent_vsize: vsize,
      bidder_signed_psbt: null,
      state: 'awaiting_bidder',
      end_reason: null,
      settlement_id: null,
      claimed_listing_id: null,
      expires_at: expiresAt,
      created_at: now,
      updated_at: now,
    });
  }
  await db.transaction().execute((tx) => createAuthorizations(tx, rows));
  return rows;
}

const num = (v: number | null) => (v === null ? null : Number(v));

/** Whether the offer's target reaches `asset` (the one policy predicate over its catalogue memberships). */
export async function offerReaches(ctx: Context, offer: OfferRow, asset: string): Promise<boolean> {
  const target = normalizeTarget({ ...offer, max_supply_units: num(offer.max_supply_units), min_supply_units: num(offer.min_supply_units) });
  if (!target.ok) return false;
  if (target.target.scope === 'asset' && target.target.collection === null) return asset === target.target.asset;
  return assetMatches(target.target, await assetMemberships(ctx.store.db, asset));
}
export type { OfferRow };
