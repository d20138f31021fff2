/** The bid side of every collection's book, kept by database triggers (store/migrations/017_book_bids.ts). */
export interface BookBidTables {
  book_bids: {
    collection_slug: string;
    price_sats: number;
    level_key: string;
    created_at: number;
    offer_id: string;
    slot_id: string;
    kind: 'asset' | 'collection' | 'trait';
    expires_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends BookBidTables {}
}
