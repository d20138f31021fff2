/**
 * The book's side tables, maintained by the database itself (triggers of migration
 * 016_book_asks) on every write to `listings` and `catalog_assets`, whoever makes it: one row per
 * (collection, active listing), keyed for the book's reads. Nothing in the application writes
 * them, so they cannot drift from the listings' state machine.
 *
 * A bid side is meant to be added the same way: a `book_bids` table of one row per (collection,
 * open offer slot) kept by triggers on the offers tables, read by the same level walk.
 */
export interface BookTables {
  book_asks: {
    collection_slug: string;
    price_sats: number;
    created_at: number;
    listing_id: string;
    /** The listing's expiry: reads filter on it, so expiry stays derived at read time. */
    expires_at: number | null;
  };
}

declare module '../../store/schema.js' {
  interface DatabaseSchema extends BookTables {}
}
