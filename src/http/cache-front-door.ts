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

const MAX_URLS = 20_000;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** What @fastify/cors (origin: true) exposes; kept equal by test/http/cache-front-door.test.ts. */
const EXPOSED = 'x-request-id, retry-after';

export interface HitLog {
  info(obj: object, msg: string): void;
}

/** The caller's x-request-id when it is a sane token, else a new one (every response carries one). */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
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
  /** [name, value, …] of a 200 without the per-request headers, and of a 304 (no content headers). */
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
    /** Log one cache hit in every `logEvery` at info (0: none). */
    private readonly logEvery = 0,
  ) {}

  /** Called by the freshness hooks for a URL Fastify routed to a public cached read. */
  remember(url: string, key: string, maxAge: number): void {
    if (this.urls.size >= MAX_URLS && !this.urls.has(url)) this.urls.clear();
    this.urls.set(url, { key, maxAge });
  }

  /** Wraps Fastify's node:http handler. */
  handler(next: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      const known = (req.method === 'GET' || req.method === 'HEAD') && req.url !== undefined ? this.urls.get(req.url) : undefined;
      if (!known) return next(req, res);
      if (this.cache.peek) {
        const hit = this.cache.peek(known.key);
        return hit ? this.send(req, res, hit, known.maxAge) : next(req, res);
      }
      this.cache.get(known.key).then(
        (hit) => (hit ? this.send(req, res, hit, known.maxAge) : next(req, res)),
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
      // The entry's header blocks, made once per second of its age (only age and max-age move).
      w.age = age;
      w.maxAge = maxAge;
      w.head304 = ['cache-control', `public, max-age=${Math.max(0, maxAge - age)}`, 'age', String(age), 'x-cache', 'hit', 'etag', w.etag, 'vary', 'Origin'];
      w.head = [...w.head304, 'content-type', w.contentType, 'content-length', w.length];
    }
    return w;
  }

  private send(req: IncomingMessage, res: ServerResponse, hit: CachedResponse, maxAge: number): void {
    this.hits++;
    const w = this.wireOf(hit, maxAge);
    const id = requestIdOf(req.headers['x-request-id']);
    const fresh = etagMatches(req.headers['if-none-match'], w.etag);
    const status = fresh ? 304 : hit.status;
    // A flat [name, value, …] list: Node writes it as is, without a per-header setHeader pass.
    const headers = (fresh ? w.head304 : w.head).slice();
    headers.push('x-request-id', id);
    // CORS headers only on a CORS request (one with an Origin), as @fastify/cors is set up in app.ts.
    const origin = req.headers.origin;
    if (origin) headers.push('access-control-allow-origin', origin, 'access-control-expose-headers', EXPOSED);
    if (this.logEvery > 0 && this.hits % this.logEvery === 0) {
      this.log.info({ reqId: id, method: req.method, url: req.url, statusCode: status, cache: 'hit', sampledOneIn: this.logEvery }, 'cache hit');
    }
    res.writeHead(status, headers);
    if (fresh || req.method === 'HEAD') res.end();
    else res.end(w.body);
  }
}
