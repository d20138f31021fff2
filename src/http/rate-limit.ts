import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';
import { LIMITS, bucketsFor, type BucketClass } from '../limits/classes.js';
import { isLimiterUnavailable, type Limiter } from '../limits/limiter.js';

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
   * This instance's own windows, counted while the shared limiter (Redis, behind its breaker)
   * cannot answer: the same classes and budgets per instance, so an outage neither lifts the
   * limits nor closes the market.
   * Absent: an outage refuses every class that does not fail open (503 service_unavailable).
   */
  fallback?: Limiter;
  clock: { now(): number };
  /** Defaults to the request's logger. */
  log?: { warn(obj: object, msg?: string): void };
};

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
  return async function rateLimit(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const cls = request.routeOptions.config?.limit;
    if (!cls) return;
    // A cached answer costs nothing upstream; the spec says it does not consume read capacity.
    if ((request as { cacheHit?: unknown }).cacheHit === true) return;

    const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
    const buckets = bucketsFor(cls, { route, address: sessionAddress(request), ip: request.ip });
    const now = deps.clock.now();

    let result;
    try {
      result = await deps.limiter.consume(buckets, now);
    } catch (e) {
      if (!isLimiterUnavailable(e)) throw e;
      const log = deps.log ?? request.log;
      // With a fallback, the shared limiter's breaker (limiter-breaker.ts) logs the outage once.
      if (LIMITS[cls].failOpen) {
        if (!deps.fallback) log.warn({ err: e, limitClass: cls, route }, 'rate limiter unavailable; letting the request through unlimited');
        return;
      }
      if (!deps.fallback) {
        log.warn({ err: e, limitClass: cls, route }, 'rate limiter unavailable; refusing with 503');
        throw new ApiError('service_unavailable', 'Rate limiting is temporarily unavailable; retry shortly', { retryable: true });
      }
      result = await deps.fallback.consume(buckets, now);
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
