import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Outpoint, Sats, Txid, UnixSeconds } from '../../http/validators.js';

/** The two feeds' event shapes (spec: Events). */
export const PublicEvent = Type.Object(
  {
    event_id: Type.String({ description: 'Stable per (kind, subject): the same event always has the same id, on every page and every read' }),
    kind: Type.Union(['sale', 'listed', 'delisted', 'offer_placed', 'offer_ended', 'collection_offer_placed', 'collection_offer_ended'].map((k) => Type.Literal(k))),
    at: { ...UnixSeconds, description: "A sale's broadcast, a listing's activation (the indexer verified its unit), an ending's retirement (an expiry: its expires_at)" },
    reason: Nullable(Type.Union(['owner', 'expired', 'invalid', 'cancelled', 'superseded', 'filled'].map((k) => Type.Literal(k)), { description: 'On delisted and *_ended; null on other kinds' })),
    asset: Nullable(Type.String({ description: 'Canonical compact asset id; null for a collection-scoped offer' })),
    asset_longname: Nullable(Type.String({ description: 'Subasset longname, display only' })),
    collection: Nullable(Type.String({ description: "Slug of the asset's primary curated collection (else its first in catalogue order); null outside the catalogue" })),
    price_sats: Sats({ minimum: 1, description: "A sale's price; a listing's current ask" }),
    seller: Nullable(Type.String()),
    buyer: Nullable(Type.String({ description: "A sale's buyer is its delivery address" })),
    bidder: Nullable(Type.String()),
    txid: Nullable({ ...Txid, description: "A sale's settlement transaction" }),
    fill_kind: Nullable(Type.Union([Type.Literal('listing'), Type.Literal('offer')], { description: 'On a sale: what was filled' })),
    confirmed_at: Nullable({ ...UnixSeconds, description: "On a confirmed sale: when the market first saw its block (not block time); null while pending (again after a reorg)" }),
  },
  { additionalProperties: false },
);

/** Every kind the owner feed carries: the spec's (Events, owner feed) and, last, the four the market adds. */
export const OWNER_EVENT_KINDS = [
  'listing_filled',
  'listing_delisted',
  'listing_expired',
  'listing_invalidated',
  'offer_accepted',
  'offer_cancelled',
  'offer_expired',
  'offer_retired',
  'offer_consumed_by_counter',
  'exact_authorization_used',
  'exact_authorization_retired',
  'collection_offer_filled',
  'collection_offer_cancelled',
  'collection_offer_expired',
  'collection_offer_retired',
  'purchase_confirmed',
  'sale_confirmed',
  'listing_exposed',
  'listing_rotated',
  'exact_offer_accept_conflicted',
  'collection_offer_accept_conflicted',
  'exact_offer_child_refused',
  'purchase_undelivered',
  'sale_undelivered',
] as const;

export const OwnerEvent = Type.Object(
  {
    event_id: Type.String({ description: 'Stable per (kind, subject); dedupe on it' }),
    // An enum in the document; serialized as a plain string (a union of literals would make the
    // serializer throw on a kind it does not list, and a feed read must never be a 500).
    kind: Type.Unsafe<(typeof OWNER_EVENT_KINDS)[number]>({
      type: 'string',
      enum: [...OWNER_EVENT_KINDS],
      description:
        'Seller: listing_filled, listing_delisted, listing_expired, listing_invalidated, sale_confirmed, and listing_exposed / listing_rotated (a released checkout had reached the network; the unit moved). Buyer: purchase_confirmed. Bidder: offer_accepted (once the funding slot is seen spent), offer_cancelled, offer_expired, offer_retired, offer_consumed_by_counter; exact_authorization_used, exact_authorization_retired; collection_offer_filled, collection_offer_cancelled, collection_offer_expired, collection_offer_retired; exact_offer_accept_conflicted and collection_offer_accept_conflicted (the seller\'s accept lost to a conflicting spend: seller role); exact_offer_child_refused (the accept\'s parent landed and the sale stands, its CPFP child was refused: seller role). purchase_undelivered (buyer) and sale_undelivered (seller): a confirmed sale whose unit Counterparty will not deliver, because a reorg mined the unit\'s attach again and Counterparty found it invalid (`delivery_failure` says why; the operator is told too); withdrawn if a later reorg undoes that block.',
    }),
    at: { ...UnixSeconds, description: 'When the market observed the event; a confirmation when it first saw the block; an expiry its expires_at' },
    role: Type.Union([Type.Literal('seller'), Type.Literal('buyer'), Type.Literal('bidder')]),
    status: Type.String({ description: "The subject's current status: a listing's state (pending, active, reserved, sold, ended), or `confirmed` for a fill's confirmation" }),
    asset: Nullable(Type.String({ description: 'Canonical compact asset id; null when the event is about a collection' })),
    collection: Type.Optional(Type.String({ description: 'Collection slug, for collection-scoped offers' })),
    price_sats: Nullable(Sats({ description: "The listing's ask, or the fill's price" })),
    txid: Nullable({ ...Txid, description: 'The settlement transaction, when one exists' }),
    listing_id: Type.Optional(Type.String()),
    offer_id: Type.Optional(Type.String()),
    authorization_id: Type.Optional(Type.String()),
    parent_txid: Type.Optional(Txid),
    funding_slot_id: Type.Optional(Type.String()),
    asset_utxo: Type.Optional({ ...Outpoint, description: "The listed unit's outpoint" }),
    expires_at: Type.Optional({ ...UnixSeconds, description: 'On an expiry' }),
    exposure_reason: Type.Optional(Type.String({ description: 'On listing_exposed: checkout_replaced, checkout_conflicted or checkout_rejected' })),
    delivery_failure: Type.Optional(Type.String({ description: "On purchase_undelivered / sale_undelivered: Counterparty's verdict on the unit's attach (e.g. `attach invalid: insufficient funds for transfer`)" })),
  },
  { additionalProperties: false },
);

export type PublicEventWire = Static<typeof PublicEvent>;
export type OwnerEventWire = Static<typeof OwnerEvent>;

/** A log entry withdrawing an earlier event (a reorg undid a confirmation, an ending was reverted, a sale's settlement was released). */
export const Retraction = Type.Object(
  {
    event_id: Type.String({ description: "The retraction's own id" }),
    kind: Type.Literal('event_retracted'),
    at: { ...UnixSeconds, description: 'When the market recorded the withdrawal' },
    retracts: Type.String({ description: 'The event_id withdrawn: drop it (it may come back later with the same id)' }),
  },
  { additionalProperties: false },
);
export type RetractionWire = Static<typeof Retraction>;

export const Seq = Type.Integer({ minimum: 1, description: 'The position in the event log: strictly increasing in commit order; resume after it with `after` or `Last-Event-ID`' });

const withSeq = (schema: typeof PublicEvent | typeof OwnerEvent | typeof Retraction) => Type.Object({ seq: Seq, ...schema.properties }, { additionalProperties: false });

/** An entry of the ordered log: an event of the feed (its row as the feed shows it), or a retraction. */
export const PublicLogEntry = Type.Union([withSeq(PublicEvent), withSeq(Retraction)], { title: 'PublicLogEntry' });
export const OwnerLogEntry = Type.Union([withSeq(OwnerEvent), withSeq(Retraction)], { title: 'OwnerLogEntry' });

export const LogPage = (entry: typeof PublicLogEntry | typeof OwnerLogEntry) =>
  Type.Object(
    {
      result: Type.Array(entry),
      result_count: Type.Integer({ minimum: 0 }),
      next_after: Type.Integer({ minimum: 0, description: 'Pass back as `after` for the next entries (the last seq returned; your own `after` when none was)' }),
    },
    { additionalProperties: false, description: 'With `after`: log entries oldest first' },
  );
