import { WINDOW_MS, normalizeBuckets, type Bucket, type ConsumeResult, type Counted, type Limiter } from './limiter.js';

/**
 * In-process backend (the default when no Redis is configured): one sorted
 * log of counted timestamps per key. Exact for a single process; several API
 * processes each keep their own budget, which is what Redis is for.
 *
 * Memory stays bounded without timers: a touched key is pruned to the window
 * and to its newest `limit` entries (see limiter.ts for why that is exact),
 * and once per window of the caller's clock a sweep drops keys whose newest
 * entry has left the window, so idle keys do not pile up.
 */
export class MemoryLimiter implements Limiter {
  private readonly logs = new Map<string, number[]>();
  private lastSweepMs: number | undefined;

  async consume(buckets: readonly Bucket[], nowMs: number): Promise<ConsumeResult> {
    const list = normalizeBuckets(buckets, nowMs);
    this.sweepIdleKeys(nowMs);

    // Decide on every bucket before counting in any: all or nothing. This
    // body never awaits, so concurrent calls cannot interleave between the
    // check and the count.
    let refused: { retryAfterMs: number; bucket: string } | undefined;
    const logs: number[][] = [];
    for (const { key, limit } of list) {
      const log = this.logs.get(key) ?? [];
      prune(log, nowMs, limit);
      logs.push(log);
      if (log.length >= limit) {
        const retryAfterMs = log[0]! + WINDOW_MS - nowMs;
        if (!refused || retryAfterMs > refused.retryAfterMs) refused = { retryAfterMs, bucket: key };
      }
    }
    if (refused) return { allowed: false, ...refused };

    list.forEach(({ key }, i) => {
      const log = logs[i]!;
      insertSorted(log, nowMs);
      this.logs.set(key, log);
    });
    return { allowed: true };
  }

  async absorb(entries: readonly Counted[], nowMs: number): Promise<void> {
    for (const { key, limit, at } of entries) this.record(key, limit, at, nowMs);
  }

  /** Counts requests in one bucket without deciding (absorb; an instance's mirror of what the shared limiter counted). */
  record(key: string, limit: number, at: readonly number[], nowMs: number): void {
    this.sweepIdleKeys(nowMs);
    const log = this.logs.get(key) ?? [];
    for (const t of at) insertSorted(log, t);
    prune(log, nowMs, limit);
    if (log.length) this.logs.set(key, log);
    else this.logs.delete(key);
  }

  async close(): Promise<void> {
    this.logs.clear();
  }

  /** Keys currently held; for tests that prove idle keys are released. */
  get trackedKeys(): number {
    return this.logs.size;
  }

  private sweepIdleKeys(nowMs: number): void {
    if (this.lastSweepMs !== undefined && nowMs >= this.lastSweepMs && nowMs - this.lastSweepMs < WINDOW_MS) return;
    this.lastSweepMs = nowMs;
    for (const [key, log] of this.logs) {
      const newest = log[log.length - 1];
      if (newest === undefined || newest + WINDOW_MS <= nowMs) this.logs.delete(key);
    }
  }
}

/** Drops entries that left the window (t + WINDOW_MS <= now) and all but the newest `limit`. */
function prune(log: number[], nowMs: number, limit: number): void {
  let expired = 0;
  while (expired < log.length && log[expired]! + WINDOW_MS <= nowMs) expired++;
  const drop = Math.max(expired, log.length - limit);
  if (drop > 0) log.splice(0, drop);
}

/** Appends in the usual case; a wall clock can step back (NTP), so an earlier `t` is placed in order. */
function insertSorted(log: number[], t: number): void {
  let i = log.length;
  while (i > 0 && log[i - 1]! > t) i--;
  log.splice(i, 0, t);
}
