/**
 * The one table of the spec's error codes and their default statuses, and the
 * one error class that carries a code and the documented extras to the renderer.
 * Routes throw ApiError; nothing maps errors by matching message text.
 */
import type { MempoolPolicy } from '../chain/errors.js';
export const ERROR_STATUS = {
  invalid_request: 400,
  unsupported_address_type: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  state_changed: 409,
  expired: 410,
  /** An event-log position (`after`, `Last-Event-ID`) older than the retention: re-read the feed from its newest page. */
  resync_required: 410,
  invalid_transaction: 422,
  /** 422 for a transaction or message signature; sign-in proofs (modules/auth) answer it 401. */
  signature_invalid: 422,
  template_mismatch: 422,
  checkout_changed: 409,
  insufficient_funds: 422,
  insufficient_asset_balance: 422,
  price_below_minimum: 422,
  listing_price_above_maximum: 422,
  counter_price_invalid: 422,
  self_trade: 409,
  duplicate_funding_slot: 409,
  offer_selection_unavailable: 409,
  attached_delivery_single_item_only: 422,
  mempool_rejected: 422,
  conflict_spend: 409,
  broadcast_unknown: 502,
  offer_capacity_full: 503,
  open_offer_limit: 409,
  policy_offer_refused: 422,
  rate_limited: 429,
  target_unavailable: 409,
  upstream_unavailable: 503,
  service_unavailable: 503,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** Node policy refusal classes the spec names on 422 mempool_rejected (classified in chain/errors.ts). */
export type { MempoolPolicy };

export type ErrorExtras = {
  retryable?: boolean;
  mempool_policy?: MempoolPolicy;
  mempool_reason?: string;
  wait_for_confirmation?: boolean;
  claims_released?: boolean;
  refused_listings?: Array<{ index: number; listing_id: string; status: number; code: ErrorCode; error: string }>;
  retry_after_seconds?: number;
  [extra: string]: unknown;
};

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: ErrorExtras;
  /** Response headers that travel with the error (Allow, Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    extras: ErrorExtras = {},
    opts: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = opts.status ?? ERROR_STATUS[code];
    this.extras = extras;
    this.headers = opts.headers ?? {};
  }

  /** The wire envelope: `{error, code, ...extras}`. */
  toBody(): Record<string, unknown> {
    return { ...this.extras, error: this.message, code: this.code };
  }
}

/** 422 insufficient_funds with the three amounts the spec puts in its body (shortfall at least 1). */
export const insufficientFunds = (message: string, needSats: number, haveSats: number, extras: ErrorExtras = {}) =>
  new ApiError('insufficient_funds', message, { need_sats: needSats, have_sats: haveSats, shortfall_sats: Math.max(1, needSats - haveSats), ...extras });

export const invalid = (message: string, extras?: ErrorExtras) => new ApiError('invalid_request', message, extras);
export const notFound = (what = 'resource') => new ApiError('not_found', `No such ${what}`);
export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

/**
 * A network fee that would leave an output below what it must carry (its dust limit, or a
 * positive amount): 422 insufficient_funds with the numbers, so the caller can lower
 * `fee_rate` or wait for fees to fall. Every composer checks this before building outputs: an
 * amount it cannot encode (negative) would otherwise be a 500.
 * `have_sats`: what the output is paid from; `need_sats`: the fee plus the least the output may carry.
 */
export function feeExceedsValue(what: string, o: { have_sats: number; need_sats: number; fee_rate: number; network_fee_sats: number; maximum_fee_rate?: number }): ApiError {
  return new ApiError('insufficient_funds', `${what}: at ${o.fee_rate} sat/vB the network fee of ${o.network_fee_sats} sats leaves too little (need ${o.need_sats} sats, have ${o.have_sats}); use a lower fee_rate or wait for fees to fall`, {
    need_sats: o.need_sats,
    have_sats: o.have_sats,
    shortfall_sats: Math.max(1, o.need_sats - o.have_sats),
    fee_rate: o.fee_rate,
    network_fee_sats: o.network_fee_sats,
    reason: 'fee_exceeds_value',
    field: 'body.fee_rate',
    ...(o.maximum_fee_rate !== undefined ? { maximum_fee_rate: o.maximum_fee_rate } : {}),
  });
}
