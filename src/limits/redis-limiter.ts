import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Redis, type RedisOptions } from 'ioredis';
import { LimiterUnavailable, WINDOW_MS, normalizeBuckets, type Bucket, type ConsumeResult, type Counted, type Limiter } from './limiter.js';
import { SLIDING_WINDOW_LUA, SLIDING_WINDOW_SHA } from './redis-script.js';
import { withTimeout } from '../util/stall-aware-timeout.js';

/** Keys outlive the window a little, so Redis drops a bucket nobody touches any more. */
const KEY_TTL_MS = WINDOW_MS + 1_000;
const DEFAULT_TIMEOUT_MS = 500;

export type RedisLimiterOptions = {
  client: Redis;
  /** Namespace on a shared server (several markets, each test its own); the limiter adds `rl:` after it. */
  prefix: string;
  /** Bound on one consume, connection wait included; past it, consume rejects with LimiterUnavailable. */
  timeoutMs?: number;
  /** Whether close() disconnects the client (true when the limiter made it). */
  ownsClient?: boolean;
};

/**
 * Client options for the limiter's connection. The offline queue is off: a
 * command queued during an outage would time out for its caller yet still
 * run after the reconnect, counting a request that was never served. Reconnects
 * continue forever with a capped backoff; each command is bounded.
 */
export function limiterRedisOptions(timeoutMs = DEFAULT_TIMEOUT_MS): RedisOptions {
  return {
    // Only a backstop that frees a command ioredis would otherwise hold forever: the bound callers
    // see is withTimeout's, which tells our own event-loop stall from a silent server.
    commandTimeout: timeoutMs * 3 + 1_000,
    connectTimeout: Math.max(timeoutMs, 1_000),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times: number) => Math.min(times * 100, 2_000),
    lazyConnect: true,
  };
}

/**
 * Redis backend: one sorted set per bucket and one Lua script per request
 * over all its keys (redis-script.ts), sent by EVALSHA with a fallback to EVAL
 * when the server does not hold the script (restart, SCRIPT FLUSH).
 *
 * All keys of one request go to one script, so this needs a standalone Redis
 * (or a cluster with every limiter key under one hash tag in `prefix`).
 */
export class RedisLimiter implements Limiter {
  private readonly client: Redis;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly ownsClient: boolean;
  /** Makes members unique across processes (instance) and within one (sequence). */
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;
  private readyWait: Promise<void> | undefined;

  constructor(opts: RedisLimiterOptions) {
    this.client = opts.client;
    this.prefix = `${opts.prefix}rl:`;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.ownsClient = opts.ownsClient ?? false;
  }

  async consume(buckets: readonly Bucket[], nowMs: number): Promise<ConsumeResult> {
    const list = normalizeBuckets(buckets, nowMs);
    if (list.length === 0) return { allowed: true };
    const keys = list.map((b) => this.prefix + b.key);
    const member = `${nowMs}:${this.instance}:${++this.sequence}`;
    const args = [String(nowMs), String(nowMs - WINDOW_MS), member, String(KEY_TTL_MS), String(WINDOW_MS), ...list.map((b) => String(b.limit))];

    // A script cut off by the timeout may still run on the server and count a
    // request we answered as unavailable: a rare over-count, never an under-count.
    let reply: unknown;
    try {
      reply = await withTimeout(this.runScript(keys, args), this.timeoutMs);
    } catch (e) {
      throw new LimiterUnavailable(`rate limiter: Redis did not answer (${e instanceof Error ? e.message : String(e)})`, { cause: e });
    }
    return parseReply(reply, list);
  }

  /**
   * One MULTI: each key's entries added (members unique, as consume's), then pruned to the window
   * and its newest `limit`, as the script does before it decides.
   */
  async absorb(entries: readonly Counted[], nowMs: number): Promise<void> {
    const multi = this.client.multi();
    for (const { key, limit, at } of entries) {
      if (!at.length) continue;
      const k = this.prefix + key;
      multi.zadd(k, ...at.flatMap((t) => [t, `${t}:${this.instance}:a${++this.sequence}`]));
      multi.zremrangebyscore(k, '-inf', nowMs - WINDOW_MS);
      multi.zremrangebyrank(k, 0, -(limit + 1));
      multi.pexpire(k, KEY_TTL_MS);
    }
    try {
      await withTimeout(
        this.whenReady().then(() => multi.exec()),
        this.timeoutMs,
      );
    } catch (e) {
      throw new LimiterUnavailable(`rate limiter: Redis did not take the outage's counts (${e instanceof Error ? e.message : String(e)})`, { cause: e });
    }
  }

  async ping(): Promise<void> {
    await withTimeout(this.whenReady().then(() => this.client.ping()), this.timeoutMs);
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    if (this.client.status === 'ready') {
      await this.client.quit().catch(() => this.client.disconnect());
    } else {
      this.client.disconnect();
    }
  }

  private async runScript(keys: string[], args: string[]): Promise<unknown> {
    await this.whenReady();
    try {
      return await this.client.evalsha(SLIDING_WINDOW_SHA, keys.length, ...keys, ...args);
    } catch (e) {
      if (!(e instanceof Error && e.message.startsWith('NOSCRIPT'))) throw e;
      return await this.client.eval(SLIDING_WINDOW_LUA, keys.length, ...keys, ...args);
    }
  }

  /**
   * With the offline queue off, a command sent while the first connection is
   * still being made would fail at once; wait for it (bounded by the caller's
   * timeout). A connection that was lost and is reconnecting fails fast: the
   * hook, not a queue, decides what an outage means.
   */
  private whenReady(): Promise<void> {
    const status = this.client.status;
    if (status === 'ready') return Promise.resolve();
    if (status !== 'wait' && status !== 'connecting' && status !== 'connect') {
      return Promise.reject(new Error(`connection is ${status}`));
    }
    if (!this.readyWait) {
      // events.once also rejects on 'error' (refused, DNS), so an unreachable server fails at once.
      this.readyWait = once(this.client, 'ready', { signal: AbortSignal.timeout(this.timeoutMs) })
        .then(() => undefined)
        .finally(() => {
          this.readyWait = undefined;
        });
      if (status === 'wait') this.client.connect().catch(() => undefined);
    }
    return this.readyWait;
  }
}

/** A limiter with its own connection, configured by limiterRedisOptions. */
export function connectRedisLimiter(opts: {
  url: string;
  prefix: string;
  timeoutMs?: number;
  /** Connection errors (ioredis reports them as events; without a listener it prints them). */
  onError?: (err: Error) => void;
}): RedisLimiter {
  const client = new Redis(opts.url, limiterRedisOptions(opts.timeoutMs));
  client.on('error', (err: Error) => opts.onError?.(err));
  return new RedisLimiter({ client, prefix: opts.prefix, timeoutMs: opts.timeoutMs, ownsClient: true });
}

function parseReply(reply: unknown, list: Bucket[]): ConsumeResult {
  if (Array.isArray(reply) && reply[0] === 1) return { allowed: true };
  if (Array.isArray(reply) && reply[0] === 0) {
    const [, retryAfterMs, index] = reply as [number, unknown, unknown];
    const bucket = typeof index === 'number' ? list[index - 1] : undefined;
    if (typeof retryAfterMs === 'number' && bucket) return { allowed: false, retryAfterMs, bucket: bucket.key };
  }
  throw new Error(`rate limiter: unexpected script reply ${JSON.stringify(reply)}`);
}
