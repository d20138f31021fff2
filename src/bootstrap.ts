import os from 'node:os';
import { notifierFor } from './events/notifier.js';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import type { Context, DevnetHandle } from './context.js';
import type { Chain } from './chain/ports.js';
import { skewedClock, type Clock } from './clock.js';
import { openStore, type Store } from './store/db.js';
import { migrate } from './store/migrate.js';
import { loadSecret } from './store/meta.js';
import { Cursors } from './http/cursor.js';
import { requestLogValue } from './http/log-redaction.js';
import { MemoryResponseCache, RedisResponseCache } from './http/response-cache.js';
import { MarketGeneration } from './http/cache-generation.js';
import { MemoryLimiter } from './limits/memory-limiter.js';
import { LimiterBreaker } from './limits/limiter-breaker.js';
import { OutageWindows } from './limits/outage-windows.js';
import { MemoryStreamSlots, type StreamSlots } from './limits/stream-slots.js';
import type { Limiter } from './limits/limiter.js';
import { createChain } from './chain/factory.js';
import { SettlementJournal } from './settlement/journal.js';
import { Indexer } from './indexer/indexer.js';
import { settlementWatcher } from './indexer/settlement-watcher.js';
import { HttpSigner, LazyInProcessSigner, type SignerPort } from './signer/port.js';
import { openSigner } from './signer/open.js';
import { nowSeconds } from './clock.js';
import type { Area } from './area.js';
import { AREAS } from './modules/areas.js';
import { failpointFor } from './failpoint.js';
import { instanceName, LocalLeadership, type Leadership } from './cluster/leadership.js';

export interface Bootstrapped {
  ctx: Context;
  close(): Promise<void>;
}

/** Pino with the secrets of this service kept out of the logs. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.LOG_LEVEL,
      redact: {
        paths: ['req.headers["x-session-token"]', 'req.headers.authorization', 'req.headers.cookie', '*.psbt_hex', '*.signature', '*.token', '*.raw_hex'],
        censor: '[redacted]',
      },
      // The request line's URL as sent, less the values of credential-looking query parameters.
      serializers: { req: requestLogValue },
    },
    destination,
  );
}

/**
 * Opens everything the service needs, in order, from one validated config:
 * store (migrated under a lock), chain backends, limiter, cache, secret.
 * Tests call this too, with a ready store, clock or chain passed in.
 */
export async function bootstrap(
  config: Config,
  over: { store?: Store; clock?: Clock; chain?: { chain: Chain; devnet?: DevnetHandle }; logger?: Logger; areas?: readonly Area[] } = {},
): Promise<Bootstrapped> {
  const logger = over.logger ?? createLogger(config);
  const clock = over.clock ?? skewedClock(config.CLOCK_SKEW_MS);
  const closers: Array<() => Promise<void>> = [];

  const store = over.store ?? (await openStore(config.DATABASE_URL, {
    schema: config.DATABASE_SCHEMA,
    readUrl: config.DATABASE_READ_URL,
    applicationName: `market ${os.hostname()}:${process.pid}`,
    connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: config.PG_QUERY_TIMEOUT_MS,
    onConnectionError: (err) => logger.warn({ err: err.message }, 'database session ended (by the server, or dropped past PG_QUERY_TIMEOUT_MS); the pool opens another'),
  }));
  if (!over.store) closers.push(() => store.close());
  await migrate(store);

  const secret = await loadSecret(store.db, config.SECRET);

  let limiter: Limiter;
  let limiterFallback: Limiter | undefined;
  let streamSlots: StreamSlots;
  let cache;
  if (config.REDIS_URL) {
    // ioredis and its command table (~450 kB of source) are loaded only when Redis is configured:
    // the default single instance never uses them (docs/performance.md, idle memory).
    const [{ Redis }, { connectRedisLimiter }, { RedisStreamSlots }] = await Promise.all([
      import('ioredis'),
      import('./limits/redis-limiter.js'),
      import('./limits/redis-stream-slots.js'),
    ]);
    const redisLimiter = connectRedisLimiter({
      url: config.REDIS_URL,
      prefix: config.REDIS_PREFIX,
      onError: (err) => logger.warn({ err: err.message }, 'redis limiter connection error'),
    });
    // While Redis cannot answer, each instance counts the same budgets itself (rate-limit.ts), from
    // its own last minute, and adds those counts to Redis when it answers again (outage-windows.ts).
    const windows = new OutageWindows();
    limiter = new LimiterBreaker(redisLimiter, logger, windows);
    limiterFallback = windows;
    closers.push(() => windows.close());
    // No offline queue: a dropped connection makes misses at once. The command timeout only bounds
    // a hung server; at 500 ms a loaded machine timed out healthy writes and lost cache entries.
    const cacheClient = new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1, commandTimeout: 2_000, enableOfflineQueue: false });
    cacheClient.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis cache connection error'));
    cache = new RedisResponseCache(cacheClient, config.REDIS_PREFIX, () => clock.now());
    streamSlots = new RedisStreamSlots({ client: cacheClient, prefix: config.REDIS_PREFIX, onError: (e) => logger.warn({ err: String(e) }, 'stream slot renewal failed') });
    closers.push(async () => void cacheClient.disconnect());
  } else {
    limiter = new MemoryLimiter();
    streamSlots = new MemoryStreamSlots();
    cache = new MemoryResponseCache(() => clock.now());
  }
  closers.push(() => streamSlots.close());
  closers.push(() => limiter.close());

  const made = over.chain ?? (await createChain(config, store, clock, logger));
  if (!over.chain && made.devnet?.close) closers.push(() => made.devnet!.close!());

  const failpoint = failpointFor(config.CRASH_AT);
  const journal = new SettlementJournal(store.db, made.chain.bitcoin, clock, logger, failpoint, config.SETTLEMENT_WAIT_HOLD_S * 1000);
  let signer: SignerPort;
  if (config.SIGNER_URL) signer = new HttpSigner(config.SIGNER_URL, config.SIGNER_SECRET!);
  else {
    const lazy = new LazyInProcessSigner(() => openSigner(config.SIGNER_DIR, config.NETWORK, () => nowSeconds(clock)));
    closers.push(async () => lazy.close());
    signer = lazy;
  }
  const notifier = notifierFor(store);
  closers.push(() => notifier.close());
  const generation = new MarketGeneration(store.db, notifier, config.CACHE_GENERATION_POLL_MS);
  await generation.start();
  closers.push(async () => generation.close());
  const areas = over.areas ?? AREAS;
  const instance = instanceName(config.PORT);
  const leadership: Leadership =
    store.dialect === 'postgres'
      ? // Loaded only on PostgreSQL: it brings pg, which a SQLite market never needs (docs/performance.md).
        new (await import('./cluster/pg-leadership.js')).PgLeadership(store.db, store.url, store.schema!, instance, config.LEADERSHIP_INTERVAL_MS, logger, () => clock.now())
      : new LocalLeadership(store.db, instance, () => clock.now());
  const ctx: Context = {
    areas,
    signer,
    config,
    store,
    chain: made.chain,
    devnet: made.devnet,
    limiter,
    limiterFallback,
    streamSlots,
    cache,
    generation,
    clock,
    cursors: new Cursors(secret),
    logger,
    journal,
    failpoint,
    leadership,
    notifier,
    indexer: undefined as unknown as Indexer,
    sync: async () => {
      await journal.recover();
      await ctx.indexer.run();
      await ctx.cache.clear();
    },
  };
  // Every area's contributions, from its manifest: the journal's settlement first in each block, then the areas' watchers.
  const watchers = [settlementWatcher(journal), ...areas.flatMap((a) => a.watchers?.(ctx) ?? [])];
  ctx.indexer = new Indexer(store.db, made.chain, clock, watchers, logger, { failpoint, afterRun: () => generation.refresh() });
  const close = async () => {
    for (const c of closers.reverse()) await c().catch((e: unknown) => logger.warn({ err: String(e) }, 'close failed'));
  };
  // Registered when the context is built, so recovery and the indexer apply them whether or not this process serves HTTP.
  try {
    for (const area of areas) {
      for (const [kind, handlers] of Object.entries(area.settlementHandlers?.(ctx) ?? {})) journal.register(kind, handlers);
    }
  } catch (e) {
    // A boot that fails here (two areas claiming one settlement kind) must not leave Redis or the store open.
    await close();
    throw e;
  }
  return { ctx, close };
}
