/**
 * The marketplace API specification's tables, written once as data (issue 31): routes with their
 * session, rate-limit class and freshness; the error codes with their statuses and the extras their
 * bodies carry; the limit classes and their numbers; the feeds' kinds and reasons. The conformance
 * tests hold the served OpenAPI document, the route table and live answers against these rows, so
 * a route or a code the service adds without its row here fails the suite.
 *
 * Rows the specification does not have (extensions) are kept apart, each with its reason; where a
 * reason is a departure from the specification it is also written in docs/deviations.md.
 */
import type { BucketClass } from '../../src/limits/classes.js';

/** `public` needs no session; `session` declares one (an owner route also answers 403 to another address). */
export type Auth = 'public' | 'session';
export type Freshness = number | 'no-store';
export interface RouteRow {
  auth: Auth;
  /** The rate-limit class (src/limits/classes.ts), or null for routes the spec leaves unlimited. */
  limit: BucketClass | null;
  /** Public max-age in seconds, or no-store. */
  cache: Freshness;
}

const pub = (cache: Freshness, limit: BucketClass | null = 'uncached_read'): RouteRow => ({ auth: 'public', limit, cache });
const ses = (limit: BucketClass): RouteRow => ({ auth: 'session', limit, cache: 'no-store' });

/** Routes the specification names (Endpoints, Limits, Freshness), keyed as the OpenAPI document keys them. */
export const SPEC_ROUTES: Record<string, RouteRow> = {
  // Authentication: 60 per 60 s per IP, session or not.
  'POST /v1/auth/challenge': pub('no-store', 'sign_in'),
  'POST /v1/auth/verify': pub('no-store', 'sign_in'),
  'POST /v1/auth/session': pub('no-store', 'sign_in'),
  // Public market reads: edge-cached up to 30 s; attachable inventory 10 s; the public feed 15 s; analytics 60 s.
  'GET /v1/artists': pub(30),
  'GET /v1/artists/{key}': pub(30),
  'GET /v1/artists/{key}/assets': pub(30),
  'GET /v1/fee-rate': pub(30),
  'GET /v1/attach-fee-estimate': pub(30),
  'GET /v1/collections/{slug}/holders': pub(30),
  'GET /v1/collections/{slug}/book': pub(30),
  'GET /v1/collections/{slug}/offer-targets': pub(30),
  // Live offers with an estimated net at the current fee rate: no-store (503 while signing is unavailable).
  'GET /v1/assets/{asset}/policy-offers': pub('no-store'),
  'GET /v1/analytics': pub(60),
  'GET /v1/events': pub(15),
  // "Rate limited; not cached."
  'POST /v1/transactions/status': pub('no-store'),
  'GET /v1/fills': pub(30),
  'GET /v1/inventory/attachable': pub(10),
  'GET /v1/inventory/prepared': ses('uncached_read'),
  // Listing and preparation.
  'GET /v1/address/{address}/listing-preflights': ses('recovery_read'),
  'GET /v1/listing-preflights/{id}': ses('recovery_read'),
  'POST /v1/listing-preflights/{id}/attach-and-list': ses('signed_completion'),
  'POST /v1/listing-preflights/{id}/listing': ses('signed_completion'),
  'POST /v1/listings/{id}/reprice': ses('signed_completion'),
  'POST /v1/listings/batch': ses('expensive_write'),
  'POST /v1/listing-preflights': ses('expensive_write'),
  'POST /v1/attach-templates': ses('expensive_write'),
  'POST /v1/checkout/quotes': ses('expensive_write'),
  'POST /v1/checkout/quotes/{id}/complete': ses('signed_completion'),
  // Offers.
  'POST /v1/funded-offers': ses('expensive_write'),
  'POST /v1/offers': ses('expensive_write'),
  'POST /v1/exact-offer-authorizations/{id}/bidder-psbt': ses('signed_completion'),
  'POST /v1/exact-offer-authorizations/{id}/accept': ses('signed_completion'),
  'GET /v1/address/{address}/exact-offers': ses('recovery_read'),
  'GET /v1/address/{address}/counters': ses('uncached_read'),
  'POST /v1/offer-cancellations/review': ses('account_maintenance'),
  // Collection (policy) offers.
  'GET /v1/address/{address}/policy-offers': ses('uncached_read'),
  'POST /v1/policy-offers/{id}/cancel': ses('account_maintenance'),
  'POST /v1/policy-offers/{id}/cancel-transaction': ses('expensive_write'),
  'POST /v1/policy-accepts/preflight': ses('expensive_write'),
  'POST /v1/policy-accepts': ses('signed_completion'),
  'POST /v1/policy-offers': ses('expensive_write'),
  // Events.
  'GET /v1/address/{address}/events': ses('uncached_read'),
};

/**
 * Routes the service serves that the specification does not name (docs/deviations.md, "Routes the
 * specification does not list"), each with the class and freshness its kind of route takes there.
 */
export const EXTRA_ROUTES: Record<string, RouteRow> = {
  'GET /healthz': pub('no-store', null),
  'GET /readyz': pub('no-store', null),
  // The spec's flows name these steps without their routes.
  'POST /v1/listing-preflights/{id}/attach': ses('signed_completion'),
  // The spec's retry table: after a 502/503 during an accept's completion, read the saved operation status.
  'GET /v1/exact-offer-authorizations/{id}/accept': ses('recovery_read'),
  'GET /v1/policy-accepts/{id}': ses('recovery_read'),
  'DELETE /v1/listing-preflights/{id}': ses('account_maintenance'),
  'POST /v1/listing-preflights/{id}/price': ses('account_maintenance'),
  'POST /v1/listings/{id}/delist': ses('account_maintenance'),
  'POST /v1/listings/{id}/rotation': ses('expensive_write'),
  'POST /v1/listings/{id}/rotation/signed': ses('signed_completion'),
  'GET /v1/checkout/quotes/{id}': ses('recovery_read'),
  'POST /v1/offer-funding': ses('expensive_write'),
  'GET /v1/offer-placements/{id}': ses('recovery_read'),
  'GET /v1/address/{address}/offers': ses('uncached_read'),
  'GET /v1/address/{address}/offer-placements': ses('uncached_read'),
  'POST /v1/offers/{id}/cancel': ses('account_maintenance'),
  'POST /v1/offer-placements/{id}/cancel': ses('account_maintenance'),
  'POST /v1/offer-cancellations': ses('account_maintenance'),
  'POST /v1/offers/{id}/exact-authorizations': ses('expensive_write'),
  'POST /v1/exact-offer-authorizations/{id}/cancel': ses('account_maintenance'),
  'GET /v1/address/{address}/exact-authorizations': ses('uncached_read'),
  'POST /v1/exact-offer-authorizations/{id}/accept-preflight': ses('expensive_write'),
  'POST /v1/exact-offer-selections/validate': ses('expensive_write'),
  'POST /v1/offers/{id}/counters': ses('expensive_write'),
  'POST /v1/counters/{id}/withdraw': ses('account_maintenance'),
  'POST /v1/policy-offers/preflight': ses('expensive_write'),
  'GET /v1/policy-offers/capacity': pub('no-store'),
  'GET /v1/policy-offers/cancelled': pub('no-store'),
  'GET /v1/market-signer': pub(30),
  // Issue 30: what a client reads once (network, versions, the node's fee floor, signer keys, limits).
  'GET /v1/meta': pub(30),
  // Issue 30: a seller's own listings (owner only).
  'GET /v1/address/{address}/listings': ses('uncached_read'),
  // Issue 34: an unplaced collection-offer preflight gives its anchor back.
  'POST /v1/policy-offers/preflights/{id}/release': ses('account_maintenance'),
  'POST /v1/inventory/cosigned-withdrawals': ses('expensive_write'),
  'GET /v1/collections': pub(30),
  'GET /v1/collections/{slug}': pub(30),
  'GET /v1/artists/{key}/profile/eligibility': ses('artist_edit'),
  'PATCH /v1/artists/{key}/profile': ses('artist_edit'),
  'GET /v1/assets/{asset}/best-offer': pub(30),
  // Push delivery ("not shown" in the spec).
  'GET /v1/stream/events': pub('no-store'),
  'GET /v1/address/{address}/stream': ses('uncached_read'),
  'POST /v1/address/{address}/webhooks': ses('account_maintenance'),
  'GET /v1/address/{address}/webhooks': ses('account_maintenance'),
  'DELETE /v1/address/{address}/webhooks/{id}': ses('account_maintenance'),
  'POST /v1/address/{address}/webhooks/{id}/secret': ses('account_maintenance'),
  'GET /v1/address/{address}/webhooks/{id}/deliveries': ses('account_maintenance'),
  'POST /v1/address/{address}/webhooks/{id}/deliveries/{delivery_id}/replay': ses('account_maintenance'),
};

export interface CodeRow {
  /** The statuses the spec gives it ("typical status"). */
  statuses: number[];
  /** Extras its body always carries. */
  extras: string[];
}

/** Errors: the code table, with the statuses and the body fields the spec gives each. */
export const SPEC_CODES: Record<string, CodeRow> = {
  invalid_request: { statuses: [400, 413], extras: [] },
  unsupported_address_type: { statuses: [400], extras: [] },
  unauthenticated: { statuses: [401], extras: [] },
  forbidden: { statuses: [403], extras: [] },
  not_found: { statuses: [404], extras: [] },
  method_not_allowed: { statuses: [405], extras: [] },
  // `mempool_reason` only when a broadcast lost to a conflicting or replacing spend, so not on every answer.
  state_changed: { statuses: [409], extras: [] },
  expired: { statuses: [410], extras: [] },
  invalid_transaction: { statuses: [422], extras: [] },
  signature_invalid: { statuses: [401, 422], extras: [] },
  template_mismatch: { statuses: [422, 409], extras: [] },
  checkout_changed: { statuses: [409], extras: [] },
  insufficient_funds: { statuses: [422], extras: ['need_sats', 'have_sats', 'shortfall_sats'] },
  insufficient_asset_balance: { statuses: [422, 409], extras: ['asset', 'held_raw', 'committed_raw', 'needed_raw', 'purpose'] },
  price_below_minimum: { statuses: [422], extras: ['minimum_price_sats'] },
  listing_price_above_maximum: { statuses: [422], extras: ['maximum_price_sats'] },
  counter_price_invalid: { statuses: [422], extras: ['minimum_counter_sats'] },
  self_trade: { statuses: [409], extras: [] },
  duplicate_funding_slot: { statuses: [409], extras: [] },
  offer_selection_unavailable: { statuses: [404, 409], extras: [] },
  attached_delivery_single_item_only: { statuses: [422], extras: [] },
  mempool_rejected: { statuses: [422], extras: ['mempool_policy'] },
  conflict_spend: { statuses: [409], extras: [] },
  broadcast_unknown: { statuses: [502], extras: [] },
  offer_capacity_full: { statuses: [503], extras: [] },
  open_offer_limit: { statuses: [409], extras: [] },
  policy_offer_refused: { statuses: [422, 409], extras: ['refusal_code'] },
  rate_limited: { statuses: [429], extras: ['retry_after_seconds'] },
  // "not shown with a status": the service answers it 409, like the other "no longer available" codes.
  target_unavailable: { statuses: [409], extras: [] },
  upstream_unavailable: { statuses: [502, 503], extras: [] },
  service_unavailable: { statuses: [503], extras: [] },
  internal_error: { statuses: [500], extras: [] },
};

/** Codes the service adds (docs/deviations.md, "Extensions"). */
export const EXTENSION_CODES: Record<string, CodeRow> = {
  resync_required: { statuses: [410], extras: [] },
};

/** The envelope's documented fields beyond `error` and `code`. */
export const ENVELOPE_FIELDS = ['retryable', 'mempool_policy', 'mempool_reason', 'wait_for_confirmation', 'claims_released', 'refused_listings', 'retry_after_seconds'];
export const MEMPOOL_POLICIES = ['fee_floor', 'chain_too_long', 'truc', 'dust', 'nonstandard'];

/** Limits: requests per 60 s per principal (session address, or IP when anonymous) and the per-IP ceiling. */
export const LIMIT_CLASSES: Record<BucketClass, { principal: number; ipCeiling: number | null; perRoute: boolean; failOpen: boolean }> = {
  expensive_write: { principal: 20, ipCeiling: 120, perRoute: true, failOpen: false },
  signed_completion: { principal: 120, ipCeiling: 600, perRoute: true, failOpen: true },
  sign_in: { principal: 60, ipCeiling: null, perRoute: false, failOpen: false },
  uncached_read: { principal: 300, ipCeiling: 1_800, perRoute: false, failOpen: false },
  recovery_read: { principal: 300, ipCeiling: 1_800, perRoute: false, failOpen: false },
  account_maintenance: { principal: 120, ipCeiling: 600, perRoute: false, failOpen: false },
  artist_edit: { principal: 6, ipCeiling: 30, perRoute: false, failOpen: false },
};

/** Events: the owner feed's kinds with their role. */
export const OWNER_FEED_KINDS: Record<string, 'seller' | 'bidder' | 'buyer'> = {
  listing_filled: 'seller',
  listing_delisted: 'seller',
  listing_expired: 'seller',
  listing_invalidated: 'seller',
  offer_accepted: 'bidder',
  offer_cancelled: 'bidder',
  offer_expired: 'bidder',
  offer_retired: 'bidder',
  offer_consumed_by_counter: 'bidder',
  exact_authorization_used: 'bidder',
  exact_authorization_retired: 'bidder',
  collection_offer_filled: 'bidder',
  collection_offer_cancelled: 'bidder',
  collection_offer_expired: 'bidder',
  collection_offer_retired: 'bidder',
  purchase_confirmed: 'buyer',
  sale_confirmed: 'seller',
};

/** Owner-feed kinds the service adds (listings it exposes and rotates, a lost accept race, a refused child, a sale Counterparty will not deliver): docs/deviations.md. */
export const EXTRA_OWNER_FEED_KINDS = ['listing_exposed', 'listing_rotated', 'exact_offer_accept_conflicted', 'collection_offer_accept_conflicted', 'exact_offer_child_refused', 'purchase_undelivered', 'sale_undelivered'];

/** The public feed's kinds and reasons. */
export const PUBLIC_FEED_KINDS = ['sale', 'listed', 'delisted', 'offer_placed', 'offer_ended', 'collection_offer_placed', 'collection_offer_ended'];
export const PUBLIC_FEED_REASONS = ['owner', 'expired', 'invalid', 'cancelled', 'superseded', 'filled'];
/** `GET /v1/events?kind=` */
export const PUBLIC_FEED_FILTERS = ['sales', 'listings', 'offers'];
