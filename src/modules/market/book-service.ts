import { notFound } from '../../http/errors.js';
import type { BookStore } from './book-store.js';
import { offerSide, type BookOffer, type OfferLevel } from './book-offers.js';
import type { BookListing, Fill } from './public-rows.js';

/** The book's bounds (documented on the route). */
export const BOOK_LEVELS = 50;
export const BOOK_LISTINGS_PER_LEVEL = 20;
export const BOOK_FILLS = 20;
/** Up to this many listings in the shown levels, one index-only window ranks them; above, per-level ranges do. */
export const WINDOW_PLAN_MAX_ROWS = 2_000;

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
    private readonly windowPlanMaxRows = WINDOW_PLAN_MAX_ROWS,
  ) {}

  async book(slug: string): Promise<OrderBook> {
    if (!(await this.store.collectionExists(slug))) throw notFound('collection');
    const now = this.nowSeconds();
    const found = await this.store.levels(slug, now, BOOK_LEVELS + 1);
    const levels = found.slice(0, BOOK_LEVELS);
    const shown = levels.reduce((n, l) => n + l.depth, 0);
    const listings =
      levels.length === 0
        ? []
        : shown <= this.windowPlanMaxRows
          ? await this.store.rankedInLevels(slug, now, levels[0]!.price_sats, levels.at(-1)!.price_sats, BOOK_LISTINGS_PER_LEVEL)
          : await this.store.firstOfEachLevel(slug, now, levels.map((l) => l.price_sats), BOOK_LISTINGS_PER_LEVEL);
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
      fills: await this.store.recentFills(slug, BOOK_FILLS),
      listings_truncated: found.length > BOOK_LEVELS || levels.some((l) => l.depth > BOOK_LISTINGS_PER_LEVEL),
      ...(await offerSide(this.store.db, slug, now)),
    };
  }
}
