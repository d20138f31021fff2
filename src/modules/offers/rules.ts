/** The bid side's limits and rules (the spec's Limits: offer placement, exact offers). */
import crypto from 'node:crypto';
import { ApiError } from '../../http/errors.js';
import { DELIVERY_UTXO_SATS } from '../../trade/rules.js';
import { MIN_PRICE_SATS } from '../listings/index.js';
import type { OfferRow } from './store.js';

export const MAX_BIDS = 20;
export const MAX_TARGETS = 500;
export const MAX_OFFER_ROWS = 1_000;
/** A bid's market expiry may be at most this far ahead (its Bitcoin validity ends only when the slot is spent). */
export const MAX_OFFER_TTL_S = 180 * 24 * 60 * 60;
/** Offer funding: slots one composed funding transaction may create. */
export const MAX_FUNDING_SLOTS = MAX_BIDS;
/** Coins a funding request may name (`funding` of POST /v1/offer-funding). */
export const MAX_NAMED_FUNDING = 20;
/** Placement cannot use more than this many outpoints that are still unconfirmed. */
export { DELIVERY_UTXO_SATS, MIN_PRICE_SATS };

export const newOfferId = (prefix: 'of' | 'pl' | 'fs') => `${prefix}_${crypto.randomBytes(12).toString('hex')}`;

/** The slot value a bid at `price` needs: the price, plus the 330-sat delivery output for attached delivery. */
export const slotValue = (price: number, mode: 'detached' | 'attached') => price + (mode === 'attached' ? DELIVERY_UTXO_SATS : 0);

/** The price a slot of `value` backs (the inverse of slotValue). */
export const priceOfSlot = (value: number, mode: 'detached' | 'attached') => value - (mode === 'attached' ? DELIVERY_UTXO_SATS : 0);

/** 422 price_below_minimum: a bid must leave the accepting seller something after fees. */
export function checkOfferPrice(price: number, field: string): void {
  if (price < MIN_PRICE_SATS) {
    throw new ApiError('price_below_minimum', `${field}: an offer must be at least ${MIN_PRICE_SATS} sats`, { minimum_price_sats: MIN_PRICE_SATS, field });
  }
}

/** A bid's marketplace expiry: in the future and at most 180 days ahead. */
export function checkOfferExpiry(expiresAt: number, now: number, field = 'body.expires_at'): void {
  if (expiresAt <= now) throw new ApiError('invalid_request', `${field} must be in the future`, { field });
  if (expiresAt > now + MAX_OFFER_TTL_S) throw new ApiError('invalid_request', `${field} must be at most 180 days ahead`, { field });
}

/** The state an offer reads as now: an active offer past its market expiry reads `expired` (written when the watcher meets it). */
export function offerStatus(o: Pick<OfferRow, 'state' | 'expires_at'>, now: number): OfferRow['state'] {
  return o.state === 'active' && o.expires_at <= now ? 'expired' : o.state;
}

/** Every offer read says how long the bid is valid where: the market's expiry, and on Bitcoin until the slot is spent. */
export function signatureValidity(o: Pick<OfferRow, 'expires_at' | 'bid_txid' | 'bid_vout'>) {
  return {
    marketplace_expires_at: o.expires_at,
    bitcoin_expires_at: null,
    bitcoin_invalidation: { type: 'spend_funding_outpoint' as const, outpoint: { txid: o.bid_txid, vout: o.bid_vout } },
  };
}

/** The target part of a book level (price aside): equal for two offers exactly when their normalized targets are. */
export const levelKey = (t: { scope: string; kind: string; asset: string | null; collection: string | null; max_supply_units: number | null; min_supply_units: number | null; issued_year: number | null; series: number | null; artist: string | null }) =>
  JSON.stringify([t.scope, t.kind, t.asset, t.collection, t.max_supply_units, t.min_supply_units, t.issued_year, t.series, t.artist]);
