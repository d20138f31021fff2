import { notFound } from '../../http/errors.js';
import { RANGE_MAX_ROWS, type BookStore } from './book-store.js';
import type { BookListing, Fill } from './public-rows.js';

/** The book's bounds (documented on the route). */
export const BOOK_LEVELS = 50;
export const BOOK_LISTINGS_PER_LEVEL = 20;
export const BOOK_FILLS = 20;

export interface AskLevel {
  price_sats: number;
  depth: number;
  listings: BookListing[];
}

export interface OrderBook {
  asks: AskLevel[];
  offer_levels: never[];
  offers: never[];
  fills: Fill[];
  top_collection_offer_sats: number | null;
  best_offer_sats: number | null;
  listings_truncated: boolean;
  offer_levels_truncated: boolean;
  offers_truncated: boolean;
}

/**
 * The collection order book: asks grouped by price (public fillable listings only), recent
 * fills, and the offer side, which stays empty (and untruncated) until offers exist; the shape
 * is already the final one so clients need no change when it fills.
 */
export class BookService {
  constructor(
    private readonly store: BookStore,
    private readonly nowSeconds: () => number,
    /** Plan switch of `BookStore.firstOfEachLevel` (tests run both plans). */
    private readonly rangeMaxRows = RANGE_MAX_ROWS,
  ) {}

  async book(slug: string): Promise<OrderBook> {
    const now = this.nowSeconds();
    // Independent reads side by side (on PostgreSQL they run on separate pool connections).
    const [exists, found, fills] = await Promise.all([
      this.store.collectionExists(slug),
      this.store.levels(slug, now, BOOK_LEVELS + 1),
      this.store.recentFills(slug, BOOK_FILLS),
    ]);
    if (!exists) throw notFound('collection');
    const levels = found.slice(0, BOOK_LEVELS);
    const listings = await this.store.firstOfEachLevel(slug, now, levels, BOOK_LISTINGS_PER_LEVEL, this.rangeMaxRows);
    const byPrice = new Map<number, BookListing[]>();
    for (const l of listings) {
      const level = byPrice.get(l.price_sats);
      if (level) level.push(l);
      else byPrice.set(l.price_sats, [l]);
    }
    // A level whose listings all left between the two reads (sold, delisted) is not shown.
    const asks = levels.filter((l) => byPrice.has(l.price_sats)).map((l) => ({ price_sats: l.price_sats, depth: l.depth, listings: byPrice.get(l.price_sats)! }));
    return {
      asks,
      offer_levels: [],
      offers: [],
      fills,
      top_collection_offer_sats: null,
      best_offer_sats: null,
      listings_truncated: found.length > BOOK_LEVELS || levels.some((l) => l.depth > BOOK_LISTINGS_PER_LEVEL),
      offer_levels_truncated: false,
      offers_truncated: false,
    };
  }
}
