/**
 * The book's side tables, maintained by the database itself (triggers of migration
 * 016_book_asks) on every write to `listings` and `catalog_assets`, whoever makes it: one row per
 * (collection, active listing), keyed for the book's reads. Nothing in the application writes
 * them, so they cannot drift from the listings' state machine. `book_ask_levels` and
 * `book_ask_top` (migration 025) follow `book_asks` the same way: each level's count and its
 * first rows, ready for the read. `book_fills` (migration 085) keeps each collection's shown fills
 * by time, for the recent fills, from `fills` and `catalog_assets` the same way.
 *
 * A bid side is meant to be added the same way: a `book_bids` table of one row per (collection,
 * open offer slot) kept by triggers on the offers tables, read by the same level walk.
 */
import type { ListingSubtype } from '../../counterparty/cosigned-listing.js';

export interface BookTables {
  book_asks: {
    collection_slug: string;
    price_sats: number;
    created_at: number;
    listing_id: string;
    /** The listing's expiry: reads filter on it, so expiry stays derived at read time. */
    expires_at: number | null;
  };
  /** Entries per (collection, price) of `book_asks`, expiry not applied (migration 025). */
  book_ask_levels: {
    collection_slug: string;
    price_sats: number;
    depth: number;
  };
  /** The first `TOP` entries of each level in book order with the listing's public columns (migration 025). */
  book_ask_top: {
    collection_slug: string;
    price_sats: number;
    created_at: number;
    listing_id: string;
    expires_at: number | null;
    asset: string;
    seller: string;
    utxo_txid: string;
    utxo_vout: number;
    quantity_raw: string;
    asset_longname: string | null;
    media_kind: string | null;
    protocol_subtype: ListingSubtype;
    /** The public row (BookListing) as JSON text, written by triggers with the row (migration 027). */
    row_json: string | null;
  };
  /** One row per (collection, pending or confirmed fill of a member asset), newest last in key order (migration 085). */
  book_fills: {
    collection_slug: string;
    broadcast_at: number;
    fill_id: string;
  };
}

declare module '../../store/schema.js' {
  interface DatabaseSchema extends BookTables {}
}
