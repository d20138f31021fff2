/**
 * Trade kernel: owns the rows every state owner appends to the event log, and event ids.
 *
 * What the state owners append to the event log (src/events/append.ts): for each transition, the
 * row the feed shows, in the feed's row shape (public-store.ts, owner-store.ts), so the log, the
 * newest-first feeds and the stream render an event through the same mapping (service.ts).
 * Events the feeds derive at read time (an expiry before the indexer records it) enter the log
 * when the market records them.
 */
import { appendEvent, appendRetraction } from '../events/append.js';
import type { Tx } from '../store/db.js';
import crypto from 'node:crypto';
import type { DatabaseSchema } from '../store/schema.js';

type FillRecord = DatabaseSchema['fills'];
type ListingRow = DatabaseSchema['listings'];
type StoredOwnerEvent = DatabaseSchema['owner_events'];

/** Stable event id: the same (kind, subject) is always the same row (its SQL twin: modules/events/event-id-sql.ts). */
export const eventId = (kind: string, subject: string) =>
  `ev_${crypto.createHash('sha256').update(`${kind}\n${subject}`).digest('hex').slice(0, 32)}`;

/** A row of the owner feed (modules/events/owner-store.ts reads them in this shape). */
export interface OwnerEventRow {
  event_id: string;
  kind: string;
  at: number;
  role: 'seller' | 'buyer' | 'bidder';
  status: string;
  asset: string | null;
  price_sats: number | null;
  txid: string | null;
  listing_id: string | null;
  offer_id: string | null;
  utxo_txid: string | null;
  utxo_vout: number | null;
  expires_at: number | null;
  /** The stored row's JSON extras (null on derived rows). */
  data: string | null;
}

/** A row of the public feed (modules/events/public-store.ts reads them in this shape). */
export interface PublicEventRow {
  event_id: string;
  kind: 'sale' | 'listed' | 'delisted' | 'offer_placed' | 'offer_ended' | 'collection_offer_placed' | 'collection_offer_ended';
  at: number;
  reason: 'owner' | 'expired' | 'invalid' | 'cancelled' | 'superseded' | 'filled' | null;
  asset: string | null;
  /** Set on offer rows (their own target); null elsewhere (the asset's primary collection is looked up). */
  collection: string | null;
  bidder: string | null;
  asset_longname: string | null;
  price_sats: number;
  seller: string | null;
  buyer: string | null;
  txid: string | null;
  fill_kind: 'listing' | 'offer' | null;
  confirmed_at: number | null;
}

const NO_PARTIES = { seller: null, buyer: null, bidder: null, txid: null, fill_kind: null, confirmed_at: null, asset_longname: null, collection: null } as const;

/** An owner_events row as the owner feed reads it. */
export function logOwnerEvent(tx: Tx, e: StoredOwnerEvent): void {
  const row: OwnerEventRow = {
    event_id: e.event_id,
    kind: e.kind,
    at: e.at,
    role: e.role,
    status: e.status,
    asset: e.asset,
    price_sats: e.price_sats,
    txid: e.txid,
    listing_id: e.listing_id,
    offer_id: null,
    utxo_txid: null,
    utxo_vout: null,
    expires_at: null,
    data: e.data,
  };
  appendEvent(tx, { event_id: e.event_id, feed: 'owner', address: e.address, kind: e.kind, at: e.at, row });
}

export function retractOwnerEvent(tx: Tx, address: string, retracts: string, at: number): void {
  appendRetraction(tx, { feed: 'owner', address, retracts, at });
}

export function retractPublicEvent(tx: Tx, retracts: string, at: number): void {
  appendRetraction(tx, { feed: 'public', retracts, at });
}

/** Public: activated before its expiry (public-store.ts `listing`). */
export const isPublicListing = (l: Pick<ListingRow, 'activated_at' | 'expires_at'>): boolean => l.activated_at !== null && l.activated_at < l.expires_at;

/**
 * The public `delisted` of a listing as the feed derives it now (public-store.ts `delistedEnded`,
 * `delistedExposed`, `delistedExpired`): an exposure, or an ending after one, sits at exposed_at,
 * when the listing left the book; the seller's own delist or rotation reads `owner`, an exposure
 * or a foreign spend `invalid`.
 */
export function logDelisted(tx: Tx, l: ListingRow, at: number): void {
  if (!isPublicListing(l)) return;
  if (l.state === 'ended' && l.end_reason === 'expired') return logListingEvent(tx, l, 'delisted', 'expired', l.expires_at);
  const exposed = l.exposed_at !== null;
  logListingEvent(tx, l, 'delisted', l.end_reason === 'owner' || l.end_reason === 'rotated' ? 'owner' : 'invalid', exposed ? l.exposed_at! : at);
}

/** `listed` (at its activation; again with the current ask after a reprice) or `delisted`. */
export function logListingEvent(tx: Tx, l: ListingRow, kind: 'listed' | 'delisted', reason: 'owner' | 'expired' | 'invalid' | null, at: number): void {
  const row: PublicEventRow = { ...NO_PARTIES, event_id: eventId(kind, l.id), kind, at, reason, asset: l.asset, price_sats: l.price_sats, seller: l.seller };
  appendEvent(tx, { event_id: row.event_id, feed: 'public', kind, at, row });
}

/** A fill's `sale` as the public feed shows it now (again on confirmation and when a reorg undoes it). */
export function logSale(tx: Tx, f: FillRecord): void {
  const row: PublicEventRow = {
    event_id: eventId('sale', f.id),
    kind: 'sale',
    at: f.broadcast_at,
    reason: null,
    asset: f.asset,
    asset_longname: f.asset_longname,
    collection: null,
    bidder: null,
    price_sats: f.price_sats,
    seller: f.seller,
    buyer: f.buyer,
    txid: f.txid,
    fill_kind: f.kind,
    confirmed_at: f.state === 'confirmed' ? f.confirmed_at : null,
  };
  appendEvent(tx, { event_id: row.event_id, feed: 'public', kind: 'sale', at: row.at, row });
}

/** The owner feed's fill events (owner-store.ts `fills`): listing_filled, sale_confirmed, purchase_confirmed. */
export function logFillOwnerEvent(
  tx: Tx,
  f: FillRecord,
  kind: 'listing_filled' | 'sale_confirmed' | 'purchase_confirmed',
  status: string,
  unit: { utxo_txid: string; utxo_vout: number } | null,
): void {
  const at = kind === 'listing_filled' ? f.broadcast_at : f.confirmed_at!;
  const row: OwnerEventRow = {
    event_id: eventId(kind, f.id),
    kind,
    at,
    role: kind === 'purchase_confirmed' ? 'buyer' : 'seller',
    status,
    asset: f.asset,
    price_sats: f.price_sats,
    txid: f.txid,
    listing_id: f.kind === 'listing' ? f.ref_id : null,
    offer_id: f.kind === 'offer' ? f.ref_id : null,
    utxo_txid: unit?.utxo_txid ?? null,
    utxo_vout: unit?.utxo_vout ?? null,
    expires_at: null,
    data: null,
  };
  appendEvent(tx, { event_id: row.event_id, feed: 'owner', address: kind === 'purchase_confirmed' ? f.buyer : f.seller, kind, at, row });
}

export interface OfferLike {
  id: string;
  scope: string;
  asset: string | null;
  collection: string | null;
  bidder: string;
  price_sats: number;
  created_at: number;
  expires_at: number;
}

/** `offer_placed` / `collection_offer_placed` (public-store.ts `offer`). */
export function logOfferPlaced(tx: Tx, o: OfferLike): void {
  logOffer(tx, o, 'placed', o.created_at, null);
}

/**
 * `offer_ended` / `collection_offer_ended`, with the feed's reason; an expiry sits at expires_at.
 * `filled`: a collection-scoped offer's fill (public-store.ts `offerEnded`), never an asset one's.
 */
export function logOfferEnded(tx: Tx, o: OfferLike, reason: 'cancelled' | 'superseded' | 'invalid' | 'expired' | 'filled', at: number): void {
  logOffer(tx, o, 'ended', reason === 'expired' ? o.expires_at : at, reason);
}

function logOffer(tx: Tx, o: OfferLike, kind: 'placed' | 'ended', at: number, reason: PublicEventRow['reason']): void {
  const wireKind = (o.scope === 'asset' ? `offer_${kind}` : `collection_offer_${kind}`) as PublicEventRow['kind'];
  const row: PublicEventRow = { ...NO_PARTIES, event_id: eventId(`offer_${kind}`, o.id), kind: wireKind, at, reason, asset: o.asset, collection: o.collection, bidder: o.bidder, price_sats: o.price_sats };
  appendEvent(tx, { event_id: row.event_id, feed: 'public', kind: wireKind, at, row });
}
