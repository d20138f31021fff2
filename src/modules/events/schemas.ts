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

export const OwnerEvent = Type.Object(
  {
    event_id: Type.String({ description: 'Stable per (kind, subject); dedupe on it' }),
    kind: Type.String({
      description:
        'listing_filled, listing_delisted, listing_expired, listing_invalidated, listing_exposed, listing_rotated (seller); purchase_confirmed (buyer), sale_confirmed (seller); offer_* and collection_offer_* (bidder) as the offer flows ship',
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
  },
  { additionalProperties: false },
);

export type PublicEventWire = Static<typeof PublicEvent>;
export type OwnerEventWire = Static<typeof OwnerEvent>;
