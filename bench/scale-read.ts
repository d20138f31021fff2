/**
 * Issue #33 items 1 and 5, the `scale-read` group (`npm run bench -- --only scale-read`):
 *
 * - the uncached book, offer targets with a trait filter, holders and analytics of the bench
 *   market (bench/scale-market.ts) at 1,000,000 listings and offers and at 10,000, on SQLite and
 *   on PostgreSQL, in process through the services (no HTTP cache), each beside its bounds
 *   (p50 < 5 ms, p99 < 20 ms); the largest collection's figures are the named ones, a random mix
 *   of collections is printed beside them;
 * - the build time and size of each market. A built market is kept (SQLite: a file under
 *   data/bench-cache/; PostgreSQL: a schema of its own, its build figures in the schema's
 *   comment) under a fingerprint of the migrations and the generator's own SQL, so a later run
 *   reuses it and reports the build time recorded then;
 * - the idle resident memory of `start:prod` with the demo market (bench/rss-prod.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { openStore, type Store } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { migrations } from '../src/store/migrations/index.js';
import { BookService } from '../src/modules/market/book-service.js';
import { BookStore } from '../src/modules/market/book-store.js';
import { OfferTargetsService } from '../src/modules/market/offer-targets-service.js';
import { HoldersService } from '../src/modules/market/holders-service.js';
import { AnalyticsService } from '../src/modules/market/analytics-service.js';
import { pgUrl } from '../test/helpers/store.js';
import { loadMarket, marketStatements, MARKET_10K, MARKET_1M, slugOf, type MarketSize } from './scale-market.js';
import { printTable, say } from './http-load.js';
import { unreachable } from './stream-cluster.js';
import { prodIdleRss, startProdArgs } from './rss-prod.js';

export const P50_BOUND_MS = 5;
export const P99_BOUND_MS = 20;
const CACHE_DIR = path.resolve('data/bench-cache');
/** Per read: at most this many calls, or this many seconds of them (and at least 5 calls). */
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 200);
const BUDGET_S = Number(process.env.BENCH_SCALE_SECONDS ?? 6);

interface Built {
  store: Store;
  build_s: number;
  size_mb: number;
  reused: boolean;
  built_at: number;
}

/** The migrations and the generator's SQL (both dialects): any change to either builds anew. */
function fingerprint(size: MarketSize): string {
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify({ migrations: Object.keys(migrations), size }));
  for (const s of [...marketStatements(size, 0, true), ...marketStatements(size, 0, false)]) h.update(s);
  return h.digest('hex').slice(0, 12);
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

async function sqliteMarket(label: string, size: MarketSize): Promise<Built> {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const name = `scale-${label}-${fingerprint(size)}`;
  const file = path.join(CACHE_DIR, `${name}.sqlite`);
  const metaFile = path.join(CACHE_DIR, `${name}.json`);
  if (fs.existsSync(file) && fs.existsSync(metaFile)) {
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as {
      build_s: number;
      built_at: number;
    };
    return {
      store: await openStore(`sqlite:${file}`),
      ...meta,
      size_mb: mb(fs.statSync(file).size),
      reused: true,
    };
  }
  // Older builds of this size go (a million rows is a few hundred MB).
  for (const f of fs.readdirSync(CACHE_DIR)) if (f.startsWith(`scale-${label}-`)) fs.rmSync(path.join(CACHE_DIR, f), { force: true });
  const tmp = path.join(CACHE_DIR, `${name}.building.sqlite`);
  const t0 = performance.now();
  const builtAt = Math.floor(Date.now() / 1000);
  const store = await openStore(`sqlite:${tmp}`);
  await migrate(store);
  await loadMarket(store.db, size, builtAt);
  await sql.raw('PRAGMA wal_checkpoint(TRUNCATE)').execute(store.db);
  await store.close();
  const build_s = Math.round((performance.now() - t0) / 100) / 10;
  fs.renameSync(tmp, file);
  for (const f of [`${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true });
  fs.writeFileSync(metaFile, JSON.stringify({ build_s, built_at: builtAt }));
  return {
    store: await openStore(`sqlite:${file}`),
    build_s,
    built_at: builtAt,
    size_mb: mb(fs.statSync(file).size),
    reused: false,
  };
}

async function pgMarket(label: string, size: MarketSize): Promise<Built> {
  const schema = `bench_scale_${label}_${fingerprint(size)}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    const found = await admin.query<{ meta: string | null }>(`SELECT obj_description(oid, 'pg_namespace') AS meta FROM pg_namespace WHERE nspname = $1`, [schema]);
    const sizeOf = async () =>
      mb(
        Number(
          (
            await admin.query<{ bytes: string }>(
              `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
              [schema],
            )
          ).rows[0]!.bytes,
        ),
      );
    const meta = found.rows[0]?.meta;
    if (meta) {
      const m = JSON.parse(meta) as { build_s: number; built_at: number };
      return {
        store: await openStore(pgUrl, { schema, poolSize: 5 }),
        ...m,
        size_mb: await sizeOf(),
        reused: true,
      };
    }
    // A build without its comment did not finish; older builds of this size go too.
    const old = await admin.query<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`, [`bench_scale_${label}_%`]);
    for (const r of old.rows) await admin.query(`DROP SCHEMA ${r.nspname} CASCADE`);
    const t0 = performance.now();
    const builtAt = Math.floor(Date.now() / 1000);
    const store = await openStore(pgUrl, { schema, poolSize: 5 });
    await migrate(store);
    // Without the query deadline (PG_QUERY_TIMEOUT_MS): a million rows' statements rightly run
    // longer than a request should. The reads after run with it, as in production.
    await store.unbounded!((db) => loadMarket(db, size, builtAt));
    const build_s = Math.round((performance.now() - t0) / 100) / 10;
    await admin.query(`COMMENT ON SCHEMA ${schema} IS '${JSON.stringify({ build_s, built_at: builtAt })}'`);
    return {
      store,
      build_s,
      built_at: builtAt,
      size_mb: await sizeOf(),
      reused: false,
    };
  } finally {
    await admin.end();
  }
}

interface Read {
  name: string;
  p50: number;
  p99: number;
  runs: number;
}

/** `fn` after a warm-up, up to RUNS calls or BUDGET_S seconds; latency percentiles in ms. */
async function timed(name: string, fn: (i: number) => Promise<unknown>): Promise<Read> {
  await fn(0);
  const took: number[] = [];
  const end = performance.now() + BUDGET_S * 1000;
  for (let i = 1; i <= RUNS && (took.length < 5 || performance.now() < end); i++) {
    const t0 = performance.now();
    await fn(i);
    took.push(performance.now() - t0);
  }
  took.sort((a, b) => a - b);
  const at = (p: number) => Math.round(took[Math.min(took.length - 1, Math.ceil((p / 100) * took.length) - 1)]! * 100) / 100;
  return { name, p50: at(50), p99: at(99), runs: took.length };
}

/** The four reads of one market: the largest collection (the named figures) and a random mix of collections. */
async function reads(store: Store, size: MarketSize): Promise<Record<string, { largest: Read; mix: Read }>> {
  // Now: the listings expire a year after the build; the fills' month slides with the clock.
  const clock = () => Math.floor(Date.now() / 1000);
  const db = store.db;
  const book = new BookService(new BookStore(db), clock);
  const targets = new OfferTargetsService(db, clock);
  const holders = new HoldersService(db);
  const analytics = new AnalyticsService(db, clock);
  // Every call of the mix its own collection (seeded, so each run asks the same ones).
  let seed = 42;
  const random = () => slugOf((seed = (seed * 1103515245 + 12345) % 2 ** 31) % size.collections);
  const fns: Record<string, (slug: () => string) => (i: number) => Promise<unknown>> = {
    book_uncached: (slug) => () => book.book(slug()),
    offer_targets_trait: (slug) => () => targets.targets(slug(), { series: 3 }, 8),
    holders: (slug) => () => holders.holders(slug(), 50),
    // One snapshot of the whole market: there is no collection to pick.
    analytics_uncached: () => () => analytics.snapshot(),
  };
  const out: Record<string, { largest: Read; mix: Read }> = {};
  for (const [name, fn] of Object.entries(fns)) {
    const largest = await timed(
      `${name}, the largest collection`,
      fn(() => slugOf(0)),
    );
    const mix = name === 'analytics_uncached' ? largest : await timed(`${name}, a random collection each call`, fn(random));
    out[name] = { largest, mix };
  }
  return out;
}

export async function scaleReadBench(): Promise<Record<string, number | string | boolean>> {
  const figures: Record<string, number | string | boolean> = {
    scale_read_p50_bound_ms: P50_BOUND_MS,
    scale_read_p99_bound_ms: P99_BOUND_MS,
  };
  const rows: Array<Record<string, string | number>> = [];
  const pgWhy = await unreachable(pgUrl);
  if (pgWhy) figures.scale_read_pg_skipped = `PostgreSQL is not reachable (${pgWhy})`;
  // BENCH_SCALE_SIZES=10k: the small market only (a quick look while changing a read).
  const sizes = (process.env.BENCH_SCALE_SIZES ?? '10k,1m').split(',');
  const markets = (
    [
      ['10k', MARKET_10K],
      ['1m', MARKET_1M],
    ] as Array<[string, MarketSize]>
  ).filter(([l]) => sizes.includes(l));
  for (const [label, size] of markets) {
    // BENCH_SCALE_BACKENDS=pg (or sqlite): one backend's markets only (a 1 M build is minutes each).
    const wanted = (process.env.BENCH_SCALE_BACKENDS ?? 'sqlite,pg').split(',');
    for (const backend of (pgWhy ? (['sqlite'] as const) : (['sqlite', 'pg'] as const)).filter((b) => wanted.includes(b))) {
      const suffix = backend === 'pg' ? `_pg_${label}` : `_${label}`;
      const t0 = performance.now();
      const built = backend === 'pg' ? await pgMarket(label, size) : await sqliteMarket(label, size);
      say.line(
        `${backend === 'pg' ? 'PostgreSQL' : 'SQLite'} market ${label} (${size.listings} listings, ${size.offers} offers, ${size.collections} collections): ` +
          (built.reused ? `reused (built in ${built.build_s} s on ${new Date(built.built_at * 1000).toISOString()})` : `built in ${built.build_s} s`) +
          `, ${built.size_mb} MB, opened in ${Math.round(performance.now() - t0)} ms`,
      );
      figures[`bench_market_build_s${backend === 'pg' ? '_pg' : ''}_${label}`] = built.build_s;
      figures[`db_size_mb${suffix}`] = built.size_mb;
      figures[`bench_market_reused${suffix}`] = built.reused;
      try {
        const r = await reads(built.store, size);
        for (const [name, { largest, mix }] of Object.entries(r)) {
          figures[`${name}_p50_ms${suffix}`] = largest.p50;
          figures[`${name}_p99_ms${suffix}`] = largest.p99;
          if (mix !== largest) {
            figures[`${name}_mix_p50_ms${suffix}`] = mix.p50;
            figures[`${name}_mix_p99_ms${suffix}`] = mix.p99;
          }
          for (const [which, t] of mix === largest
            ? [['', largest] as const]
            : ([
                ['', largest],
                ['_mix', mix],
              ] as const)) {
            const ok = t.p50 < P50_BOUND_MS && t.p99 < P99_BOUND_MS;
            rows.push({
              figure: `${name}${which}_p50_ms${suffix}`,
              runs: t.runs,
              'p50 ms': t.p50,
              'p50 bound': `< ${P50_BOUND_MS}`,
              'p99 ms': t.p99,
              'p99 bound': `< ${P99_BOUND_MS}`,
              meets: ok ? 'yes' : 'NO',
            });
          }
        }
      } finally {
        await built.store.close();
      }
    }
  }
  say.line('');
  printTable(rows);
  Object.assign(figures, await rssProdPart());
  return figures;
}

/** `rss_idle_prod_mb` alone: `npm run -s bench -- --only rss-prod --json` (also the end of `scale-read`). */
export async function rssProdPart(): Promise<Record<string, number | string | boolean>> {
  const figures: Record<string, number | string | boolean> = {};
  const rss = await prodIdleRss();
  if ('skipped' in rss) {
    say.line(`start:prod idle memory skipped: ${rss.skipped}`);
    figures.rss_idle_prod_skipped = rss.skipped;
  } else {
    say.line(`\nstart:prod (node ${startProdArgs().join(' ')}, the demo market), idle ${rss.settle_s} s after listening: ${rss.rss_mb} MB resident (bound < ${rss.bound_mb} MB)`);
    figures.rss_idle_prod_mb = rss.rss_mb;
    figures.rss_idle_prod_bound_mb = rss.bound_mb;
  }
  return figures;
}
