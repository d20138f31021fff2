import type { Redis } from 'ioredis';
import { withTimeout } from '../util/stall-aware-timeout.js';

/** How long a cache call waits for a connection still being made (boot); then it is a miss. */
const READY_WAIT_MS = 1_000;

export interface CachedResponse {
  status: number;
  body: string;
  contentType: string;
  /** Strong ETag of `body`, computed once when stored (absent in entries older than it). */
  etag?: string;
  /** When it was stored, ms; Age is derived from it. */
  storedAt: number;
  /** The market generation its request saw before reading (cache-generation.ts); absent on reads that do not follow the market. */
  seq?: number;
  tip?: string;
}

/**
 * The shared response cache for public reads. In memory by default; on Redis
 * when several instances serve one market, so a hit on any instance spares
 * the store and the read budget.
 */
export interface ResponseCache {
  get(key: string): Promise<CachedResponse | undefined>;
  /** A synchronous read where the store allows one (memory): the front door then answers a hit without a promise. */
  peek?(key: string): CachedResponse | undefined;
  set(key: string, value: CachedResponse, ttlMs: number): Promise<void>;
  /** Drops everything (the devnet's sync uses it so tests see the market at once). */
  clear(): Promise<void>;
}

export class MemoryResponseCache implements ResponseCache {
  private readonly map = new Map<string, { value: CachedResponse; expiresAt: number }>();
  constructor(
    private readonly now: () => number,
    private readonly maxEntries = 5000,
  ) {}

  async get(key: string): Promise<CachedResponse | undefined> {
    return this.peek(key);
  }

  peek(key: string): CachedResponse | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return hit.value;
  }

  async set(key: string, value: CachedResponse, ttlMs: number): Promise<void> {
    if (this.map.size >= this.maxEntries) {
      // Map keeps insertion order: the first key is the oldest entry.
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
    this.map.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  async clear(): Promise<void> {
    this.map.clear();
  }
}

/**
 * Entries carry their expiry on the app's clock (what every instance and the
 * tests agree on); Redis's own expiry only reclaims memory a little later.
 *
 * A cache must never make a read slower than no cache: a command is bounded (`boundMs`, far
 * above a healthy answer) and after a failure the cache is skipped for `pauseMs` (a Redis that
 * hangs, with its connections open, would otherwise cost every read the client's 2 s command
 * timeout; the simulator's `redis_hang`).
 */
export class RedisResponseCache implements ResponseCache {
  private readyWait: Promise<void> | undefined;
  private pausedUntil = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number,
    private readonly o: { boundMs: number; pauseMs: number } = { boundMs: 250, pauseMs: 1_000 },
  ) {}

  async get(key: string): Promise<CachedResponse | undefined> {
    if (Date.now() < this.pausedUntil) return undefined;
    try {
      await this.ready();
      const raw = await withTimeout(this.redis.get(this.prefix + 'rc:' + key), this.o.boundMs);
      if (!raw) return undefined;
      const entry = JSON.parse(raw) as CachedResponse & { expiresAt: number };
      return entry.expiresAt > this.now() ? entry : undefined;
    } catch {
      this.pause();
      return undefined; // a cache outage degrades to uncached reads, never to errors
    }
  }

  async set(key: string, value: CachedResponse, ttlMs: number): Promise<void> {
    if (Date.now() < this.pausedUntil) return;
    try {
      const entry = { ...value, expiresAt: this.now() + ttlMs };
      await this.ready();
      await withTimeout(this.redis.set(this.prefix + 'rc:' + key, JSON.stringify(entry), 'PX', Math.max(1, ttlMs) + 5_000), this.o.boundMs);
    } catch {
      this.pause(); // best effort
    }
  }

  private pause(): void {
    this.pausedUntil = Date.now() + this.o.pauseMs;
  }

  /**
   * The client runs without an offline queue (an outage must degrade to misses at once, not
   * pile up requests), so a command sent while it is still connecting, at boot, would fail:
   * wait for the connection, briefly.
   */
  private ready(): Promise<void> {
    const status = this.redis.status;
    if (status === 'ready') return Promise.resolve();
    if (status !== 'wait' && status !== 'connecting' && status !== 'connect') return Promise.reject(new Error(`connection is ${status}`));
    this.readyWait ??= new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady).off('error', onFail).off('end', onEnd);
        if (err) reject(err);
        else resolve();
      };
      const onReady = () => settle();
      const onFail = (err: Error) => settle(err);
      const onEnd = () => settle(new Error('connection ended'));
      const timer = setTimeout(() => settle(new Error('not connected yet')), READY_WAIT_MS);
      this.redis.once('ready', onReady).once('error', onFail).once('end', onEnd);
    }).finally(() => {
      this.readyWait = undefined;
    });
    return this.readyWait;
  }

  async clear(): Promise<void> {
    await this.ready();
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', this.prefix + 'rc:*', 'COUNT', 500);
      if (keys.length) await this.redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}
