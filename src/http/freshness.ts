import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResponseCache } from './response-cache.js';
import type { Clock } from '../clock.js';
import { etagMatches, etagOf, wantsRevalidation, type CacheFrontDoor } from './cache-front-door.js';
import type { Generation } from './cache-generation.js';

/**
 * `{public: seconds}` is a read of market state: a change the event log records ends its cached
 * answers at once (cache-generation.ts). `market: false` marks a public read that no market event
 * changes (fee rates, the signer's keys, /v1/meta): it lives its full lifetime.
 */
export type CachePolicy = { public: number; market?: false } | 'no-store';

/** What the hooks ask of the market generation (cache-generation.ts). */
export interface GenerationView {
  now(): Generation;
  current(g: Partial<Generation>): boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Freshness of a read: `{public: seconds}` (shared cache, edge-cacheable) or 'no-store'. Writes default to no-store. */
    cache?: CachePolicy;
  }
  interface FastifyRequest {
    cacheHit?: boolean;
    cacheKey?: string;
    /** The market generation seen before the handler read the store; its answer is stored under it. */
    cacheGen?: Generation;
  }
}

const policyOf = (request: FastifyRequest): CachePolicy | undefined => request.routeOptions.config?.cache;

/**
 * The cache key holds only what the route reads: its path parameters and the
 * query parameters its schema declares, sorted. Unknown query parameters
 * (cache busters) do not make a new entry, and filters do not make a new budget.
 */
export function cacheKeyOf(request: FastifyRequest): string {
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  const known = Object.keys(schema?.properties ?? {});
  const query = request.query as Record<string, unknown>;
  const params = request.params as Record<string, string>;
  const parts = known
    .filter((k) => query?.[k] !== undefined)
    .sort()
    .map((k) => `${k}=${encodeURIComponent(String(query[k]))}`);
  const paramPart = Object.keys(params ?? {})
    .sort()
    .map((k) => `${k}=${encodeURIComponent(params[k] ?? '')}`);
  return `${request.method} ${request.routeOptions.url}|${paramPart.join('&')}|${parts.join('&')}`;
}

/**
 * `door` (optional) learns each URL routed to a public read, so its next hits skip the framework
 * (cache-front-door.ts). Every public 200 carries an ETag; a matching If-None-Match gets 304.
 */
export function freshnessHooks(cache: ResponseCache, clock: Clock, generation: GenerationView, door?: CacheFrontDoor) {
  async function serveFromCache(request: FastifyRequest, reply: FastifyReply) {
    const policy = policyOf(request);
    if (!policy || policy === 'no-store' || (request.method !== 'GET' && request.method !== 'HEAD')) return;
    const key = cacheKeyOf(request);
    const market = policy.market !== false;
    request.cacheKey = key;
    // Taken before anything reads the store: an answer read before a change is stored under the older generation.
    if (market) request.cacheGen = generation.now();
    // `Cache-Control: no-cache` (or HTTP/1.0 `Pragma: no-cache`): answered fresh from the store, as
    // RFC 9111 5.2.1.4 asks, and so spending the read budget the limiter hook charges next.
    if (wantsRevalidation(request.headers)) return;
    const hit = await cache.get(key);
    if (!hit || (market && !generation.current(hit))) return;
    request.cacheHit = true;
    door?.remember(request.url, key, policy.public, market);
    const age = Math.max(0, Math.floor((clock.now() - hit.storedAt) / 1000));
    const etag = hit.etag ?? etagOf(hit.body);
    reply
      .code(hit.status)
      // The freshness left, and no Age header: a downstream cache would subtract it a second time (cache-front-door.ts).
      .header('cache-control', `public, max-age=${Math.max(0, policy.public - age)}`)
      .header('x-cache', 'hit')
      .header('etag', etag);
    if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type(hit.contentType).serializer((p: unknown) => p as string).send(hit.body);
  }

  async function storeAndLabel(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const policy = policyOf(request);
    if (request.cacheHit) return payload;
    if (policy && policy !== 'no-store' && reply.statusCode === 200) {
      reply.header('cache-control', `public, max-age=${policy.public}`);
      reply.header('x-cache', 'miss');
      if (request.cacheKey && typeof payload === 'string') {
        const etag = etagOf(payload);
        reply.header('etag', etag);
        await cache.set(
          request.cacheKey,
          { status: 200, body: payload, contentType: String(reply.getHeader('content-type') ?? 'application/json'), etag, storedAt: clock.now(), ...request.cacheGen },
          policy.public * 1000,
        );
        door?.remember(request.url, request.cacheKey, policy.public, request.cacheGen !== undefined);
        if (etagMatches(request.headers['if-none-match'], etag)) {
          reply.code(304);
          return '';
        }
      }
    } else if (!reply.hasHeader('cache-control')) {
      reply.header('cache-control', 'no-store');
    }
    return payload;
  }

  return { serveFromCache, storeAndLabel };
}
