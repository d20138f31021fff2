/**
 * Row shapes the public market reads share: the public listing row (order book and offer
 * targets) and the fill row (order book, later the sales feed), as TypeBox schemas, their
 * TypeScript types, and the mapping from stored rows. A public row never carries the seller's
 * signed half or anything else private.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, QuantityRaw, Sats, Txid, UnixSeconds, Vout } from '../../http/validators.js';
import { ListingSubtypeSchema } from '../listings/index.js';
import type { ListingSubtype } from '../../counterparty/cosigned-listing.js';

export { FillRow, FILL_COLUMNS, fillRow, type Fill } from '../../trade/fill-row.js';

export const MEDIA_KINDS = ['image', 'animation', 'video', 'html', 'svg'] as const;
const MediaKind = Nullable(Type.Union(MEDIA_KINDS.map((k) => Type.Literal(k)), { description: 'from the curated catalogue; null when it names none' }));

const listingFields = {
  id: Type.String({ description: 'listing id (lst_…)' }),
  asset: Type.String({ description: 'canonical compact asset id' }),
  asset_longname: Nullable(Type.String({ description: 'subasset longname, display only; null for a named asset or until the balance view has read the asset' })),
  seller: Type.String({ description: 'seller address' }),
  utxo_txid: Txid,
  utxo_vout: Vout,
  quantity_raw: QuantityRaw,
  price_sats: Sats({ minimum: 1, description: 'ask, sats' }),
  created_at: UnixSeconds,
  protocol_subtype: ListingSubtypeSchema,
  media_kind: MediaKind,
};

/** In offer-targets: the listing row without `expires_at`. */
export const TargetListingRow = Type.Object(listingFields, { title: 'TargetListing', additionalProperties: false });

/** In the order book: with the marketplace expiry. */
export const BookListingRow = Type.Object(
  { ...listingFields, expires_at: Nullable({ ...UnixSeconds, description: "the listing's market expiry, chosen by its seller; null: none" }) },
  { title: 'BookListing', additionalProperties: false },
);

export type TargetListing = Static<typeof TargetListingRow>;
export type BookListing = Static<typeof BookListingRow>;
type MediaKindValue = (typeof MEDIA_KINDS)[number];

/** The catalogue's media kind, or null for anything outside the documented set. */
export const mediaKindOf = (v: string | null): MediaKindValue | null => ((MEDIA_KINDS as readonly string[]).includes(v ?? '') ? (v as MediaKindValue) : null);

/** Columns a public listing row reads (listings as l, catalog_assets as ca, cp_assets as a). */
export const LISTING_COLUMNS = [
  'l.id',
  'l.asset',
  'a.asset_longname',
  'l.seller',
  'l.utxo_txid',
  'l.utxo_vout',
  'l.quantity_raw',
  'l.price_sats',
  'l.created_at',
  'l.protocol_subtype',
  'ca.media_kind',
] as const;

type Num = number | string | bigint;

export interface StoredListing {
  id: string;
  asset: string;
  asset_longname: string | null;
  seller: string;
  utxo_txid: string;
  utxo_vout: Num;
  quantity_raw: string;
  price_sats: Num;
  created_at: Num;
  protocol_subtype: ListingSubtype;
  media_kind: string | null;
}

export const targetListingOf = (r: StoredListing): TargetListing => ({
  id: r.id,
  asset: r.asset,
  asset_longname: r.asset_longname ?? null,
  seller: r.seller,
  utxo_txid: r.utxo_txid,
  utxo_vout: Number(r.utxo_vout),
  quantity_raw: r.quantity_raw,
  price_sats: Number(r.price_sats),
  created_at: Number(r.created_at),
  protocol_subtype: r.protocol_subtype,
  media_kind: mediaKindOf(r.media_kind),
});

export const bookListingOf = (r: StoredListing & { expires_at: Num | null }): BookListing => ({
  ...targetListingOf(r),
  expires_at: r.expires_at === null ? null : Number(r.expires_at),
});
