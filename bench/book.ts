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
export interface Timing {
  name: string;
  per_second: number;
  p50: number;
  p99: number;
  /** Process CPU per call, ms (user + system over every timed call): what a neighbour's load inflates least. */
  cpu_ms: number;
}

/** Runs `fn` `runs` times after a warm-up; per-call latency percentiles in ms. */
export async function time(name: string, runs: number, fn: () => Promise<unknown>): Promise<Timing> {
  await fn();
  const took: number[] = [];
  const c0 = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    took.push(performance.now() - t0);
  }
  const secs = (performance.now() - start) / 1000;
  const c = process.cpuUsage(c0);
  took.sort((a, b) => a - b);
  const at = (p: number) => Math.round(took[Math.min(took.length - 1, Math.ceil((p / 100) * took.length) - 1)]! * 100) / 100;
  return { name, per_second: Math.round((runs / secs) * 10) / 10, p50: at(50), p99: at(99), cpu_ms: Math.round(((c.user + c.system) / 1000 / runs) * 100) / 100 };
}

export async function bookScenarios(ctx: Context, api: string): Promise<{ scenarios: Scenario[]; uncached: Timing[] }> {
  const now = nowSeconds(ctx.clock);
  await seedBook(ctx.store.db, { slug: 'bench-book', listings: 10_000, assets: 10_000, levels: 2_000, now });
  await seedBook(ctx.store.db, { slug: 'bench-flat', listings: 10_000, assets: 10_000, levels: 5, now, prefix: 'F' });
  const service = new BookService(new BookStore(ctx.store.db), () => nowSeconds(ctx.clock));
  const uncached: Timing[] = [];
  uncached.push(await time('book, 10,000 listings over 2,000 price levels', 100, () => service.book('bench-book')));
  uncached.push(await time('book, 10,000 listings over 5 price levels', 100, () => service.book('bench-flat')));
  const targets = new OfferTargetsService(ctx.store.db, () => nowSeconds(ctx.clock));
  uncached.push(await time('offer targets, no filter', 50, () => targets.targets('bench-book', {}, 8)));
  uncached.push(await time('offer targets, series=3 (a seventh of the assets)', 50, () => targets.targets('bench-book', { series: 3 }, 8)));
  return {
    scenarios: [{ name: 'GET /v1/collections/{slug}/book (10,000 listings, shared cache)', url: `${api}/v1/collections/bench-book/book` }],
    uncached,
  };
}
