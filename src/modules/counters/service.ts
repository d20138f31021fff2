/**
 * Countering a bid. The seller names one unit it holds that the offer reaches and a higher
 * price: above the offer in whole 1,000-sat steps (422 counter_price_invalid with
 * `minimum_counter_sats` otherwise). The bidder takes it by funding a slot at the counter price
 * and placing an exact-unit offer on that unit (POST /v1/funded-offers or /v1/offers with the
 * counter's outpoint as `target_outpoint`): the placement takes the counter and consumes the
 * original offer; the bidder then authorizes the new offer and the seller accepts as for any bid.
 */
import crypto from 'node:crypto';
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, notFound } from '../../http/errors.js';
import { unitHolder } from '../listings/index.js';
import { oneUnitRaw } from '../market/index.js';
import { offerStatus } from '../offers/index.js';
import { offerReaches } from '../exact-offers/index.js';
import { createCounter } from '../offers/index.js';
import type { CounterTables } from '../offers/index.js';

export const COUNTER_STEP_SATS = 1_000;
export const MAX_COUNTER_TTL_S = 30 * 24 * 60 * 60;

type CounterRow = CounterTables['offer_counters'];

/** The lowest valid counter: the next whole 1,000-sat step above the offer. */
export const minimumCounter = (offerPrice: number) => (Math.floor(offerPrice / COUNTER_STEP_SATS) + 1) * COUNTER_STEP_SATS;

export const counterStatus = (c: Pick<CounterRow, 'state' | 'expires_at'>, now: number) => (c.state === 'active' && c.expires_at <= now ? 'expired' : c.state);

export async function counterOffer(ctx: Context, seller: string, offerId: string, body: { asset_outpoint: { txid: string; vout: number }; price_sats: number; expires_at: number }): Promise<CounterRow> {
  const now = nowSeconds(ctx.clock);
  const offer = await ctx.store.db.selectFrom('offers').selectAll().where('id', '=', offerId).executeTakeFirst();
  // An exact-unit offer is private to the unit's holder: to anyone else it does not exist.
  if (!offer || (offer.target_txid !== null && offer.bidder !== seller && !(await holds(ctx, seller, `${offer.target_txid}:${offer.target_vout}`)))) throw notFound('offer');
  if (offerStatus(offer, now) !== 'active') throw new ApiError('state_changed', `the offer is ${offerStatus(offer, now)}`, { offer_id: offer.id });
  if (offer.bidder === seller) throw new ApiError('self_trade', 'an address cannot counter its own offer');
  const min = minimumCounter(Number(offer.price_sats));
  if (body.price_sats < min || body.price_sats % COUNTER_STEP_SATS !== 0) {
    throw new ApiError('counter_price_invalid', `a counter must beat the offer of ${offer.price_sats} sats in whole ${COUNTER_STEP_SATS}-sat steps: at least ${min}`, { minimum_counter_sats: min });
  }
  if (body.expires_at <= now || body.expires_at > now + MAX_COUNTER_TTL_S) throw new ApiError('invalid_request', 'body.expires_at must be in the future and at most 30 days ahead', { field: 'body.expires_at' });
  const key = `${body.asset_outpoint.txid}:${body.asset_outpoint.vout}`;
  const [out, balances] = await Promise.all([ctx.chain.bitcoin.getTxOut(body.asset_outpoint.txid, body.asset_outpoint.vout, true), ctx.chain.counterparty.getUtxoBalances(key)]);
  // Gone (sold, moved, reorganized away) is a race the seller lost, not a permission: 409, as a bid on a spent slot is.
  if (!out) throw new ApiError('state_changed', `${key} is not an unspent output (spent, or unknown to the node)`, { field: 'body.asset_outpoint', outpoint: key });
  if ((await unitHolder(ctx.store.db, key, hex.decode(out.script_hex), ctx.config.NETWORK)) !== seller) throw new ApiError('forbidden', `${key} is not an output of the session address`, { field: 'body.asset_outpoint' });
  const held = balances.filter((b) => BigInt(b.quantity_raw) > 0n);
  const info = held.length === 1 ? await ctx.chain.counterparty.getAsset(held[0]!.asset) : null;
  if (!info || held[0]!.quantity_raw !== oneUnitRaw(info.divisible)) throw new ApiError('target_unavailable', `${key} does not hold exactly one whole unit`, { outpoint: key });
  if (!(await offerReaches(ctx, offer, info.asset))) throw new ApiError('target_unavailable', `the offer does not reach ${info.asset}`, { outpoint: key });
  const row: CounterRow = {
    id: `ct_${crypto.randomBytes(12).toString('hex')}`,
    offer_id: offer.id,
    bidder: offer.bidder,
    seller,
    asset: info.asset,
    asset_txid: body.asset_outpoint.txid,
    asset_vout: body.asset_outpoint.vout,
    asset_outpoint: key,
    price_sats: body.price_sats,
    offer_price_sats: Number(offer.price_sats),
    state: 'active',
    taken_by: null,
    retired_txid: null,
    retired_height: null,
    expires_at: body.expires_at,
    created_at: now,
    updated_at: now,
  };
  await ctx.store.db.transaction().execute((tx) => createCounter(tx, row));
  return row;
}

async function holds(ctx: Context, address: string, outpoint: string): Promise<boolean> {
  const [txid, vout] = outpoint.split(':');
  const out = await ctx.chain.bitcoin.getTxOut(txid!, Number(vout), true);
  return !!out && (await unitHolder(ctx.store.db, outpoint, hex.decode(out.script_hex), ctx.config.NETWORK)) === address;
}

/** The spec's bidder counter row. */
export const counterRow = (c: CounterRow) => ({
  id: c.id,
  asset: c.asset,
  seller: c.seller,
  counter_of: c.offer_id,
  price_sats: Number(c.price_sats),
  offer_price_sats: Number(c.offer_price_sats),
  target_outpoint: { txid: c.asset_txid, vout: c.asset_vout },
  expires_at: Number(c.expires_at),
  created_at: Number(c.created_at),
});
