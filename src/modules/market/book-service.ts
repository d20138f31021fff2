import { notFound } from '../../http/errors.js';
import type { BookStore } from './book-store.js';
import { offerSideOf, type BookOffer, type OfferLevel } from './book-offers.js';
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
  offer_levels: OfferLevel[];
  offers: BookOffer[];
  fills: Fill[];
  top_collection_offer_sats: number | null;
  best_offer_sats: number | null;
  listings_truncated: boolean;
  offer_levels_truncated: boolean;
  offers_truncated: boolean;
}

/**
 * The collection order book: asks grouped by price (public fillable listings only), recent
 * fills, and the offer side (book-offers.ts): bid levels, individual offers, the best bids.
 */
export class BookService {
  constructor(
    private readonly store: BookStore,
    private readonly nowSeconds: () => number,
    /** false: every level's listings from `book_asks`, not the kept rows (tests compare both). */
    private readonly keptRows = true,
  ) {}

  async book(slug: string): Promise<OrderBook> {
    const now = this.nowSeconds();
    // Every read in one statement (book-store.ts says why), then only what it could not cover.
    const snap = await this.store.snapshot(slug, now, BOOK_LEVELS, BOOK_FILLS);
    if (!snap.exists) throw notFound('collection');
    const levels = snap.levels.slice(0, BOOK_LEVELS);
    const [listings, offers] = await Promise.all([
      this.store.firstOfEachLevel(slug, now, levels, BOOK_LISTINGS_PER_LEVEL, this.keptRows ? snap.kept : null),
      offerSideOf(this.store.db, snap.bids),
    ]);
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
      fills: snap.fills,
      listings_truncated: snap.levels.length > BOOK_LEVELS || levels.some((l) => l.depth > BOOK_LISTINGS_PER_LEVEL),
      ...offers,
    };
  }
}
