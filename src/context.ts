import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Store } from './store/db.js';
import type { Chain } from './chain/ports.js';
import type { DevnetControl } from './chain/devnet-control.js';
import type { Clock } from './clock.js';
import type { ResponseCache } from './http/response-cache.js';
import type { MarketGeneration } from './http/cache-generation.js';
import type { Cursors } from './http/cursor.js';
import type { Limiter } from './limits/limiter.js';
import type { StreamSlots } from './limits/stream-slots.js';
import type { SettlementJournal } from './settlement/journal.js';
import type { Indexer } from './indexer/indexer.js';
import type { Area } from './area.js';
import type { Failpoint } from './failpoint.js';
import type { SignerPort } from './signer/port.js';
import type { Leadership } from './cluster/leadership.js';
import type { EventNotifier } from './events/notifier.js';

/**
 * Everything a route, service or job needs, built once in cli/main.ts (or a test)
 * and passed in. Nothing is imported as a singleton.
 */
export interface Context {
  config: Config;
  store: Store;
  chain: Chain;
  limiter: Limiter;
  /** The instance's own windows, counted while a shared limiter (Redis) cannot answer; absent when the limiter is this instance's already. */
  limiterFallback?: Limiter;
  /** Concurrent streams per IP and per address: on Redis (shared by every instance) when configured. */
  streamSlots: StreamSlots;
  cache: ResponseCache;
  /** How far the market has moved (event log, indexed tip): cached public reads of an older generation are not served. */
  generation: MarketGeneration;
  clock: Clock;
  cursors: Cursors;
  logger: FastifyBaseLogger;
  /** Every signed settlement is journaled here before it is broadcast. */
  journal: SettlementJournal;
  /** The block follower; its cursor lives in the store. */
  indexer: Indexer;
  /** Present only when CHAIN=devnet: the in-process chain with its control actions. */
  devnet?: DevnetHandle;
  /** The market signer (collection-offer co-signatures, soft cancels), in process or at SIGNER_URL. */
  signer: SignerPort;
  /** The areas this service is made of (modules/areas.ts): their routes, watchers, settlement handlers and jobs. */
  areas: readonly Area[];
  /** Which singleton roles (indexer, recovery, …) this instance leads; started only by the serve command's jobs. */
  leadership: Leadership;
  /** Wakes the event stream when the log grows: in process, or PostgreSQL LISTEN/NOTIFY across instances. */
  notifier: EventNotifier;
  /** Crash tests' named kill points (CRASH_AT); a no-op unless armed. */
  failpoint: Failpoint;
  /** Brings the market to the chain tip now: recovery, indexer, cache flush (/devnet/sync). */
  sync: () => Promise<void>;
}

/** The devnet as the app sees it; the engine lives in chain/devnet. */
export type DevnetHandle = DevnetControl;
