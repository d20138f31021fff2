import { LimiterUnavailable, isLimiterUnavailable, type Bucket, type ConsumeResult, type Limiter } from './limiter.js';
import type { OutageWindows } from './outage-windows.js';

/** After the shared limiter fails, how long it is not asked before one request tries it again (a hung Redis costs one request its timeout per second, not every request). */
export const SHARED_RETRY_MS = 1_000;

type Log = { warn(obj: object, msg?: string): void; info?(obj: object, msg?: string): void };

/**
 * The shared limiter (Redis) behind a breaker: after it fails, it is not asked for
 * `SHARED_RETRY_MS` (each request is refused at once as unavailable, so the caller counts it on
 * its fallback), then one request at a time probes it while the others are refused meanwhile.
 * The outage is logged once when it starts and once when it ends, not once per request it lasts.
 *
 * With the instance's `windows` (outage-windows.ts): what the shared limiter counts is mirrored
 * there, and what was counted there during an outage is added to the shared limiter before it
 * decides anything again (one payment at a time; the requests arriving meanwhile wait for it).
 */
export class LimiterBreaker implements Limiter {
  private degraded = false;
  private retryAt = 0;
  private probing = false;
  readonly ping?: () => Promise<void>;

  private paying: Promise<void> | undefined;

  constructor(
    private readonly inner: Limiter,
    private readonly log: Log,
    private readonly windows?: OutageWindows,
  ) {
    if (inner.ping) this.ping = () => inner.ping!();
  }

  async consume(buckets: readonly Bucket[], nowMs: number): Promise<ConsumeResult> {
    if (this.degraded && (nowMs < this.retryAt || this.probing)) throw new LimiterUnavailable('the shared rate limiter failed moments ago; not asked again yet');
    this.probing = this.degraded;
    try {
      if (this.paying) await this.paying;
      else if (this.windows?.owes) {
        this.paying = this.payBack(this.windows, nowMs).finally(() => {
          this.paying = undefined;
        });
        await this.paying;
      }
      const result = await this.inner.consume(buckets, nowMs);
      if (result.allowed) this.windows?.mirror(buckets, nowMs);
      if (this.degraded) {
        this.degraded = false;
        (this.log.info ?? this.log.warn).call(this.log, {}, 'shared rate limiter answers again; limits are counted across instances');
      }
      return result;
    } catch (e) {
      if (isLimiterUnavailable(e)) {
        if (!this.degraded) this.log.warn({ err: e }, "shared rate limiter unavailable; counting on this instance's own windows until it answers");
        this.degraded = true;
        this.retryAt = nowMs + SHARED_RETRY_MS;
      }
      throw e;
    } finally {
      this.probing = false;
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Adds the outage's counts to the shared windows; kept for the next try when it cannot (a backend without absorb: dropped). */
  private async payBack(windows: OutageWindows, nowMs: number): Promise<void> {
    const { entries, restore } = windows.take(nowMs);
    if (!this.inner.absorb) return;
    try {
      await this.inner.absorb(entries, nowMs);
    } catch (e) {
      restore();
      throw e;
    }
  }
}
