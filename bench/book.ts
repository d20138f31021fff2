import type { Context } from '../src/context.js';
import { nowSeconds } from '../src/clock.js';
import { BookService } from '../src/modules/market/book-service.js';
import { BookStore } from '../src/modules/market/book-store.js';
import { OfferTargetsService } from '../src/modules/market/offer-targets-service.js';
import { seedBook } from './book-seed.js';
import type { Scenario } from './market.js';

/**
 * The order book of a collection with 10,000 public listings (and 10,000 more in another
 * collection). Over HTTP the 30 s shared cache answers; the uncached build (the SQL the cache
 * hides) is timed here too, and printed, at two shapes: many price levels and very few.
 */
export async function bookScenarios(ctx: Context, api: string): Promise<Scenario[]> {
  const now = nowSeconds(ctx.clock);
  await seedBook(ctx.store.db, { slug: 'bench-book', listings: 10_000, assets: 10_000, levels: 2_000, now });
  await seedBook(ctx.store.db, { slug: 'bench-flat', listings: 10_000, assets: 10_000, levels: 5, now, prefix: 'F' });
  const service = new BookService(new BookStore(ctx.store.db), () => nowSeconds(ctx.clock));
  for (const slug of ['bench-book', 'bench-flat']) {
    await service.book(slug);
    const runs = 50;
    const start = performance.now();
    for (let i = 0; i < runs; i++) await service.book(slug);
    console.log(`book of ${slug} (10,000 listings), uncached build: ${((performance.now() - start) / runs).toFixed(2)} ms`);
  }
  const targets = new OfferTargetsService(ctx.store.db, () => nowSeconds(ctx.clock));
  for (const [label, filters] of [['no filter', {}], ['series=3 (a seventh of the assets)', { series: 3 }]] as const) {
    await targets.targets('bench-book', filters, 8);
    const start = performance.now();
    for (let i = 0; i < 20; i++) await targets.targets('bench-book', filters, 8);
    console.log(`offer targets of bench-book, ${label}, uncached: ${((performance.now() - start) / 20).toFixed(2)} ms`);
  }
  return [{ name: 'GET /v1/collections/{slug}/book (10,000 listings, shared cache)', url: `${api}/v1/collections/bench-book/book` }];
}
