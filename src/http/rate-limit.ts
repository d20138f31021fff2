import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';
import { LIMITS, bucketsFor, type BucketClass } from '../limits/classes.js';
import { isLimiterUnavailable, type ConsumeResult, type Limiter } from '../limits/limiter.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's rate-limit class (src/limits/classes.ts); absent means not limited. */
    limit?: BucketClass;
    /** The route takes no body, or an empty one even with a JSON content type (app.ts's JSON parser). */
    optionalBody?: boolean;
  }
}

export type RateLimitDeps = {
  limiter: Limiter;
  /**
   * This instance's own windows, counted while the shared limiter (Redis) cannot answer: the same
   * classes and budgets per instance, so an outage neither lifts the limits nor closes the market.
   * Absent: an outage refuses every class that does not fail open (503 service_unavailable).
   */
  fallback?: Limiter;
  clock: { now(): number };
  /** Defaults to the request's logger. */
  log?: { warn(obj: object, msg?: string): void; info?(obj: object, msg?: string): void };
};

/** After the shared limiter fails, how long requests go straight to the fallback before one tries it again (a hung Redis costs one request its timeout per second, not every request). */
export const SHARED_RETRY_MS = 1_000;

/**
 * The `onRequest` hook that applies a route's class. It runs after the auth
 * hook (which sets `request.session`) and the response cache (which sets
 * `request.cacheHit`), and before the body is parsed, so a refused request
 * costs little.
 *
 * Per-route classes are keyed by `METHOD /pattern`: the pattern, not the
 * concrete path, so `/v1/listings/a/reprice` and `/v1/listings/b/reprice`
 * share one budget, while two methods on one pattern are two routes.
 */
export function rateLimitHook(deps: RateLimitDeps) {
  // Whether the last answer came from the fallback: the outage is logged when it starts and ends,
  // not once per request it lasts.
  let degraded = false;
  let retrySharedAt = 0;
  // While degraded, one request at a time tries the shared limiter again; the rest count here.
  let probing = false;
  return async function rateLimit(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const cls = request.routeOptions.config?.limit;
    if (!cls) return;
    // A cached answer costs nothing upstream; the spec says it does not consume read capacity.
    if ((request as { cacheHit?: unknown }).cacheHit === true) return;

    const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
    const buckets = bucketsFor(cls, { route, address: sessionAddress(request), ip: request.ip });
    const log = deps.log ?? request.log;
    const now = deps.clock.now();

    let result: ConsumeResult | undefined;
    if (!deps.fallback || (now >= retrySharedAt && !(degraded && probing))) {
      probing = degraded;
      try {
        result = await deps.limiter.consume(buckets, now);
        if (degraded) {
          degraded = false;
          (log.info ?? log.warn).call(log, { limitClass: cls }, 'shared rate limiter answers again; limits are counted across instances');
        }
      } catch (e) {
        if (!isLimiterUnavailable(e)) throw e;
        if (!deps.fallback) {
          if (LIMITS[cls].failOpen) {
            log.warn({ err: e, limitClass: cls, route }, 'rate limiter unavailable; letting the request through unlimited');
            return;
          }
          log.warn({ err: e, limitClass: cls, route }, 'rate limiter unavailable; refusing with 503');
          throw new ApiError('service_unavailable', 'Rate limiting is temporarily unavailable; retry shortly', { retryable: true });
        }
        if (!degraded) log.warn({ err: e, limitClass: cls, route }, "shared rate limiter unavailable; counting on this instance's own windows until it answers");
        degraded = true;
        retrySharedAt = now + SHARED_RETRY_MS;
      } finally {
        probing = false;
      }
    }
    if (!result) {
      // The shared limiter is down: completions pass uncounted, the rest count here.
      if (LIMITS[cls].failOpen) return;
      result = await deps.fallback!.consume(buckets, now);
    }
    if (result.allowed) return;

    const secs = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
    throw new ApiError('rate_limited', 'Too many requests', { retry_after_seconds: secs }, { headers: { 'Retry-After': String(secs) } });
  };
}

/** The session's address as set by the auth hook; anything else counts as anonymous. */
function sessionAddress(request: FastifyRequest): string | null {
  const address = (request as { session?: { address?: unknown } }).session?.address;
  return typeof address === 'string' && address.length > 0 ? address : null;
}
