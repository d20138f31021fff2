/**
 * The limiter port: exact sliding 60-second windows over named buckets, with
 * all-or-nothing counting across the buckets one request touches. Two backends
 * implement it (memory-limiter.ts, redis-limiter.ts) and share one test suite.
 *
 * Window rule, to the millisecond: a request counted at `t` is inside the
 * window at `now` exactly when `now < t + WINDOW_MS`. So a request counted at
 * t=0 still counts at now=59999 and has left at now=60000.
 *
 * Decision rule: a request passes a bucket of limit `L` when fewer than `L`
 * counted requests are inside that bucket's window. It is counted (in every
 * bucket it names) only when it passes all of them; a refused request is
 * counted by none, so a refusal never eats budget.
 *
 * Only the newest `L` timestamps of a bucket can ever decide a request (the
 * request passes iff the L-th newest has left the window), so both backends
 * keep at most `L` entries per key. `retryAfterMs` is then the time until the
 * oldest kept entry leaves the window: `oldest + WINDOW_MS - now`, at least 1.
 */

export const WINDOW_MS = 60_000;

export type Bucket = {
  /** Backend-neutral key (the Redis backend adds its prefix). */
  key: string;
  /** Requests allowed inside one window; an integer of at least 1. */
  limit: number;
};

export type ConsumeResult =
  | { allowed: true }
  | {
      allowed: false;
      /** Until the request could pass every refusing bucket (the largest wait when several refuse). */
      retryAfterMs: number;
      /** Key of the refusing bucket with that wait. */
      bucket: string;
    };

export interface Limiter {
  /**
   * Counts one request at `nowMs` (the caller's clock, so tests control time)
   * in every bucket, or in none when any bucket refuses. Rejects with
   * LimiterUnavailable when the backend cannot answer; the caller decides
   * whether that blocks the request.
   */
  consume(buckets: readonly Bucket[], nowMs: number): Promise<ConsumeResult>;
  /** Releases what the backend holds (connections it owns, memory). */
  close(): Promise<void>;
  /** Readiness: resolves when the backend answers now, rejects otherwise (absent: always ready, as in memory). */
  ping?(): Promise<void>;
  /**
   * Adds requests already counted elsewhere (an instance's own windows during an outage of this
   * backend) to these windows, deciding nothing: each key keeps its newest `limit` entries inside
   * the window at `nowMs`, as consume does. Rejects with LimiterUnavailable when it cannot answer.
   */
  absorb?(entries: readonly Counted[], nowMs: number): Promise<void>;
}

/** Requests counted in one bucket at the times `at` (ms, the callers' clock). */
export type Counted = { key: string; limit: number; at: readonly number[] };

/** The backend could not answer in time (unreachable, timed out, refused). */
export class LimiterUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LimiterUnavailable';
  }
}

export const isLimiterUnavailable = (e: unknown): e is LimiterUnavailable => e instanceof LimiterUnavailable;

/**
 * Validates buckets and merges repeated keys (one key counted twice by one
 * request would otherwise cost it double); a repeated key keeps its strictest
 * limit. Bad input is a programming error, so it throws instead of rejecting
 * as unavailable.
 */
export function normalizeBuckets(buckets: readonly Bucket[], nowMs: number): Bucket[] {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0) throw new RangeError(`limiter: nowMs must be a non-negative integer, got ${nowMs}`);
  const byKey = new Map<string, number>();
  for (const { key, limit } of buckets) {
    if (typeof key !== 'string' || key.length === 0) throw new RangeError('limiter: bucket key must be a non-empty string');
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limiter: bucket ${key} limit must be an integer >= 1, got ${limit}`);
    const seen = byKey.get(key);
    byKey.set(key, seen === undefined ? limit : Math.min(seen, limit));
  }
  return [...byKey].map(([key, limit]) => ({ key, limit }));
}
