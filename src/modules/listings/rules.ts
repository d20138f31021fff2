/** Rules shared by the seller's flows: price bounds, the platform fee, draft lifetime, helpers. */
import { hex } from '@scure/base';
import { p2tr } from '@scure/btc-signer';
import type { Config } from '../../config.js';
import { ApiError } from '../../http/errors.js';
import { decodeAddress } from '../../bitcoin/address.js';
import type { Network } from '../../bitcoin/networks.js';
import { networkParams } from '../../bitcoin/networks.js';

export const PROTOCOL_VERSION = 'counterparty_attach_listing_v1' as const;
export const MIN_PRICE_SATS = 5_000;
export const MAX_PRICE_SATS = 100 * 100_000_000;
/** How long an unsigned template can be reviewed before it reads as `expired`. */
export const DRAFT_TTL_S = 15 * 60;
/** A listing's marketplace expiry may be at most this far ahead. */
export const MAX_LISTING_TTL_S = 365 * 24 * 60 * 60;
export const SINGLE_ANYONECANPAY = 0x83;

/** 422 price_below_minimum / listing_price_above_maximum, or nothing. */
export function checkPrice(price: number): void {
  if (price < MIN_PRICE_SATS) {
    throw new ApiError('price_below_minimum', `price_sats must be at least ${MIN_PRICE_SATS}`, { minimum_price_sats: MIN_PRICE_SATS });
  }
  if (price > MAX_PRICE_SATS) {
    throw new ApiError('listing_price_above_maximum', `price_sats must be at most ${MAX_PRICE_SATS} (100 BTC)`, { maximum_price_sats: MAX_PRICE_SATS });
  }
}

/** What the buyer will pay the market on top of `price`: max(floor, price × bps / 10000). */
export function platformFee(config: Pick<Config, 'MARKET_FEE_BPS' | 'MARKET_FEE_MIN_SATS'>, price: number | null): number {
  if (price === null) return 0;
  return Math.max(config.MARKET_FEE_MIN_SATS, Math.floor((price * config.MARKET_FEE_BPS) / 10_000));
}

/** A listing expiry from the body: in the future and at most a year ahead. */
export function checkListingExpiry(expiresAt: number, now: number, field = 'body.expires_at'): void {
  if (expiresAt <= now) throw new ApiError('invalid_request', `${field} must be in the future`, { field });
  if (expiresAt > now + MAX_LISTING_TTL_S) throw new ApiError('invalid_request', `${field} must be at most 365 days ahead`, { field });
}

/**
 * An optional BIP-86 internal key for a P2TR address: it must tweak (without scripts) to the
 * address's output key, so a wallet signing with it signs for that address.
 */
export function tapInternalKeyFor(address: string, keyHex: string | undefined, network: Network, field: string): Uint8Array | null {
  if (keyHex === undefined) return null;
  const d = decodeAddress(address, network);
  if (!d.ok || d.family !== 'p2tr') throw new ApiError('invalid_request', `${field} is only for a P2TR address`, { field });
  let key: Uint8Array;
  try {
    key = hex.decode(keyHex.toLowerCase());
    if (p2tr(key, undefined, networkParams(network)).address !== address) throw new Error('mismatch');
  } catch {
    throw new ApiError('invalid_request', `${field} does not tweak to ${address} (BIP-86)`, { field });
  }
  return key;
}

export const sumRaw = (xs: Iterable<string | bigint>) => {
  let s = 0n;
  for (const x of xs) s += BigInt(x);
  return s;
};
