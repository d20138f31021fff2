/**
 * Cache hits answered before the framework: a public read whose exact URL already produced a
 * cached 200 is sent from the stored bytes by the node:http handler itself, with headers made
 * from the stored entry, and never reaches routing, the request logger, the session hook, the
 * limiter, validation or serialization (none of which can change a public cached answer; a
 * hit never spends read budget either). Anything else, including every URL not seen yet and
 * every expired or evicted entry, goes to Fastify as before, whose `serveFromCache` hook
 * (freshness.ts) still answers hits there and teaches this door the URL.
 *
 * Why an exact-URL table: the cache key comes from the route's pattern and its declared query
 * parameters, which only routing knows. The URL → key pairs come from requests Fastify routed
 * and validated, so the same URL always means the same key; the table is bounded.
 */
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CachedResponse, ResponseCache } from './response-cache.js';
import type { RequestIds } from './request-ids.js';
import { redactUrl } from './log-redaction.js';
import type { MarketGeneration } from './cache-generation.js';

const MAX_URLS = 20_000;
/** What @fastify/cors (origin: true) exposes; kept equal by test/http/cache-front-door.test.ts. */
const EXPOSED = 'x-request-id, retry-after';

export interface HitLog {
  info(obj: object, msg: string): void;
}

/** Strong ETag of a body: the same bytes always give the same tag, on every instance. */
export const etagOf = (body: string): string => `"${crypto.createHash('sha1').update(body).digest('base64url')}"`;

/** RFC 9110 If-None-Match: `*`, or a list of tags compared weakly. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

interface Known {
  key: string;
  /** The route's public freshness in seconds. */
  maxAge: number;
  /** A read of market state: served only while its generation is current (cache-generation.ts). */
  market: boolean;
}

/**
 * A request that asks not to be answered from a cache without revalidation: `Cache-Control:
 * no-cache` (RFC 9111 5.2.1.4), or `Pragma: no-cache` without a Cache-Control (5.4). The origin's
 * answer to it is read from the store (and refreshes the cache), so it spends the uncached-read
 * budget: a client that sends it on every request is limited like one that busts the cache.
 * A conditional request (If-None-Match) is a revalidation already: it is checked against the
 * current entry's ETag (an entry of market state is current only while the market has not moved,
 * cache-generation.ts). fetch() adds no-cache to every request that carries If-None-Match, so
 * without this a client revalidating its copy would always pay for a store read.
 */
export function wantsRevalidation(headers: IncomingMessage['headers']): boolean {
  if (headers['if-none-match'] !== undefined) return false;
  const cc = headers['cache-control'];
  if (cc !== undefined) return cc.includes('no-cache');
  return headers.pragma === 'no-cache';
}

/**
 * Bodies up to this size leave in the same socket write as the head: node:http joins a string
 * body to its head, where a Buffer goes out as a second chunk (a writev). Larger bodies stay
 * Buffers, so the book's 90 kB are not copied into a string on every hit.
 */
export const JOIN_BODY_MAX = 16 * 1024;

/** What a stored entry puts on the wire, derived once per entry. */
interface Wire {
  body: string | Buffer;
  etag: string;
  length: string;
  contentType: string;
  /** The age and max-age the header blocks below were made for. */
  age: number;
  maxAge: number;
  /**
   * [name, value, …] of a 200, and of a 304 (no content headers), each ending with
   * `x-request-id` and a slot for its value: `send` writes the request's id into the slot and
   * hands the array to `writeHead`, which reads it before returning, so a hit allocates no list.
   */
  head: string[];
  head304: string[];
}

export class CacheFrontDoor {
  private readonly urls = new Map<string, Known>();
  /** The memory cache returns the same object for an entry until it is replaced, so this is once per stored entry. */
  private readonly wire = new WeakMap<CachedResponse, Wire>();
  /** Hits answered here; read by the metrics at scrape time (no per-hit counter call). */
  hits = 0;

  constructor(
    private readonly cache: ResponseCache,
    private readonly now: () => number,
    private readonly log: HitLog,
    private readonly ids: RequestIds,
    private readonly generation: Pick<MarketGeneration, 'current'>,
    /** Log one cache hit in every `logEvery` at info (0: none). */
    private readonly logEvery = 0,
  ) {}

  /** Called by the freshness hooks for a URL Fastify routed to a public cached read. */
  remember(url: string, key: string, maxAge: number, market: boolean): void {
    if (this.urls.size >= MAX_URLS && !this.urls.has(url)) this.urls.clear();
    this.urls.set(url, { key, maxAge, market });
  }

  /** A hit the door may send: one the market has not moved past, to a request that did not ask to revalidate. */
  private usable(req: IncomingMessage, known: Known, hit: CachedResponse | undefined): hit is CachedResponse {
    return hit !== undefined && (!known.market || this.generation.current(hit)) && !wantsRevalidation(req.headers);
  }

  /** Wraps Fastify's node:http handler. */
  handler(next: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      // A request with Transfer-Encoding goes to the framework: Node emits the request when its
      // headers end and refuses a non-chunked coding only after (RFC 9112 6.1: 400 and close), so
      // a hit sent here would be a second answer on that connection before the 400.
      const known =
        (req.method === 'GET' || req.method === 'HEAD') && req.url !== undefined && req.headers['transfer-encoding'] === undefined ? this.urls.get(req.url) : undefined;
      if (!known) return next(req, res);
      if (this.cache.peek) {
        const hit = this.cache.peek(known.key);
        return this.usable(req, known, hit) ? this.send(req, res, hit, known.maxAge) : next(req, res);
      }
      this.cache.get(known.key).then(
        (hit) => (this.usable(req, known, hit) ? this.send(req, res, hit, known.maxAge) : next(req, res)),
        () => next(req, res),
      );
    };
  }

  private wireOf(hit: CachedResponse, maxAge: number): Wire {
    let w = this.wire.get(hit);
    if (!w) {
      const bytes = Buffer.from(hit.body);
      const body = bytes.length <= JOIN_BODY_MAX ? hit.body : bytes;
      w = { body, etag: hit.etag ?? etagOf(hit.body), length: String(bytes.length), contentType: hit.contentType, age: -1, maxAge: -1, head: [], head304: [] };
      this.wire.set(hit, w);
    }
    const age = Math.max(0, Math.floor((this.now() - hit.storedAt) / 1000));
    if (age !== w.age || maxAge !== w.maxAge) {
      // The entry's header blocks, made once per second of its age (only max-age moves). No `Age`:
      // max-age already counts down, and a cache downstream adds Age to it (RFC 9111 4.2.3), so
      // sending both would halve the freshness it grants; freshness.ts answers the same.
      w.age = age;
      w.maxAge = maxAge;
      const common = ['cache-control', `public, max-age=${Math.max(0, maxAge - age)}`, 'x-cache', 'hit', 'etag', w.etag, 'vary', 'Origin'];
      w.head304 = [...common, 'x-request-id', ''];
      w.head = [...common, 'content-type', w.contentType, 'content-length', w.length, 'x-request-id', ''];
    }
    return w;
  }

  private send(req: IncomingMessage, res: ServerResponse, hit: CachedResponse, maxAge: number): void {
    this.hits++;
    const w = this.wireOf(hit, maxAge);
    const given = req.headers;
    const id = this.ids.of(given['x-request-id']);
    const fresh = etagMatches(given['if-none-match'], w.etag);
    const status = fresh ? 304 : hit.status;
    // A flat [name, value, …] list: Node writes it as is, without a per-header setHeader pass.
    let headers = fresh ? w.head304 : w.head;
    headers[headers.length - 1] = id;
    // CORS headers only on a CORS request (one with an Origin), as @fastify/cors is set up in app.ts.
    const origin = given.origin;
    if (origin) headers = [...headers, 'access-control-allow-origin', origin, 'access-control-expose-headers', EXPOSED];
    if (this.logEvery > 0 && this.hits % this.logEvery === 0) {
      this.log.info({ reqId: id, method: req.method, url: redactUrl(req.url), statusCode: status, cache: 'hit', sampledOneIn: this.logEvery }, 'cache hit');
    }
    res.writeHead(status, headers);
    if (fresh || req.method === 'HEAD') res.end();
    else res.end(w.body);
  }
}
