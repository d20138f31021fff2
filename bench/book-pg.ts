/**
 * The uncached book and offer targets on PostgreSQL (#15: the 5 ms book holds on both backends),
 * measured in process like the SQLite figures (bench/book.ts, bench/offers.ts), on a fresh schema
 * seeded the same way and dropped afterwards. Skipped, with the reason, when PostgreSQL is not
 * reachable.
 */
import crypto from 'node:crypto';
import { pgUrl } from '../test/helpers/store.js';
import { dropSchema, openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { BookService } from '../src/modules/market/book-service.js';
import { BookStore } from '../src/modules/market/book-store.js';
import { OfferTargetsService } from '../src/modules/market/offer-targets-service.js';
import { seedBook } from './book-seed.js';
import { offerBookTiming } from './offers.js';
import { time, type Timing } from './book.js';
import { unreachable } from './stream-cluster.js';

export type PgBookResult = { skipped: string } | { book: Timing; trait: Timing; withOffers: Timing };

export async function pgBookBench(): Promise<PgBookResult> {
  const why = await unreachable(pgUrl);
  if (why) return { skipped: `PostgreSQL at ${pgUrl.replace(/\/\/[^@]*@/, '//')} is not reachable (${why})` };
  const schema = `bench_book_${crypto.randomBytes(4).toString('hex')}`;
  const store = await openStore(pgUrl, { schema, poolSize: 5 });
  try {
    await migrate(store);
    const db = store.db;
    const clock = () => Math.floor(Date.now() / 1000);
    // The shapes of the SQLite figures: book_uncached (2,000 levels), offer_targets_trait, book_with_offers.
    await seedBook(db, { slug: 'bench-book', listings: 10_000, assets: 10_000, levels: 2_000, now: clock() });
    const service = new BookService(new BookStore(db), clock);
    const book = await time('PostgreSQL: book, 10,000 listings over 2,000 price levels', 100, () => service.book('bench-book'));
    const targets = new OfferTargetsService(db, clock);
    const trait = await time('PostgreSQL: offer targets, series=3 (a seventh of the assets)', 50, () => targets.targets('bench-book', { series: 3 }, 8));
    const withOffers = await offerBookTiming(db, 100);
    return { book, trait, withOffers: { ...withOffers, name: `PostgreSQL: ${withOffers.name}` } };
  } finally {
    await store.close();
    await dropSchema(pgUrl, schema);
  }
}
