import { WINDOW_MS, normalizeBuckets, type Bucket, type ConsumeResult, type Counted, type Limiter } from './limiter.js';
import { MemoryLimiter } from './memory-limiter.js';

/**
 * An instance's own windows for the time the shared limiter (Redis) cannot answer, kept so that
 * an outage neither forgets nor hides what was counted:
 * - while the shared limiter answers, every request it counts is mirrored here, so an outage
 *   starts from this instance's own last minute rather than from an empty window;
 * - during an outage, requests are decided and counted here (rate-limit.ts), and kept as owed;
 * - when the shared limiter answers again, what is owed is added to it first (LimiterBreaker),
 *   so the minute after an outage counts the requests made during it.
 * With one instance, limits are therefore exact across an outage; with several, each instance
 * decides alone during it (it cannot see the others'), and all of them are counted after it.
 */
export class OutageWindows implements Limiter {
  private readonly local = new MemoryLimiter();
  /** Requests counted here during an outage, not yet in the shared windows, oldest first. */
  private owed: Array<{ key: string; limit: number; t: number }> = [];

  /** A request the shared limiter counted. */
  mirror(buckets: readonly Bucket[], nowMs: number): void {
    for (const { key, limit } of normalizeBuckets(buckets, nowMs)) this.local.record(key, limit, [nowMs], nowMs);
  }

  /** During an outage: decided and counted on this instance's windows, and owed to the shared ones. */
  async consume(buckets: readonly Bucket[], nowMs: number): Promise<ConsumeResult> {
    const result = await this.local.consume(buckets, nowMs);
    if (result.allowed) {
      this.forget(nowMs);
      for (const { key, limit } of normalizeBuckets(buckets, nowMs)) this.owed.push({ key, limit, t: nowMs });
    }
    return result;
  }

  /** Whether requests counted here are still owed to the shared windows. */
  get owes(): boolean {
    return this.owed.length > 0;
  }

  /** Takes what is owed and still inside the window at `nowMs`, per bucket; `restore` gives it back when the shared limiter did not take it. */
  take(nowMs: number): { entries: Counted[]; restore(): void } {
    this.forget(nowMs);
    const taken = this.owed;
    this.owed = [];
    const byKey = new Map<string, { key: string; limit: number; at: number[] }>();
    for (const { key, limit, t } of taken) {
      const e = byKey.get(key) ?? { key, limit, at: [] };
      e.limit = Math.min(e.limit, limit);
      e.at.push(t);
      byKey.set(key, e);
    }
    return {
      entries: [...byKey.values()],
      restore: () => {
        this.owed = [...taken, ...this.owed];
      },
    };
  }

  async close(): Promise<void> {
    this.owed = [];
    await this.local.close();
  }

  /** Drops owed requests that have left the window: they no longer count anywhere. */
  private forget(nowMs: number): void {
    let n = 0;
    while (n < this.owed.length && this.owed[n]!.t + WINDOW_MS <= nowMs) n++;
    if (n) this.owed.splice(0, n);
  }
}
