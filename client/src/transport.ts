/**
 * One request through an injectable `fetch` (browsers, edge runtimes, Node): the envelope
 * checked, failures as MarketError, a timeout and the caller's AbortSignal on every call, and
 * retries exactly as the contract's "Retry rules" allow:
 * - reads (and writes the caller marks idempotent: the same `idempotency_key`, an identical
 *   policy placement, the same signed bytes) are retried on 429, 502, 503, 504 and network
 *   errors, with jittered exponential backoff, waiting at least what `retry_after_seconds` or
 *   `Retry-After` asks;
 * - any other write is sent once;
 * - a 401 asks `onUnauthorized` for a fresh session of the same address, once, then repeats.
 */
import { MarketError } from './errors.js';
import type { RouteKey, Routes } from './generated/api.js';
import { ReplyValidator, routeOf } from './validate.js';

export type FetchLike = (input: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  /** The body as bytes as they arrive (fetch's ReadableStream); only the event streams need it. */
  body?: ReadableStream<Uint8Array> | null;
}>;

type FetchReply = Awaited<ReturnType<FetchLike>>;

export interface TransportOptions {
  baseUrl: string;
  fetch?: FetchLike;
  /** Per attempt, milliseconds (default 15 s). */
  timeoutMs?: number;
  /** Attempts for a retryable request, the first included (default 4). */
  maxAttempts?: number;
  /** Backoff base (default 250 ms); the n-th retry waits a random time up to base × 2^n, at least what the server asked. */
  backoffMs?: number;
  /** The session token sent as x-session-token. */
  token?: () => string | undefined;
  /** Asked once on 401 for a fresh session (sign in again with the same address); its token is then used. */
  onUnauthorized?: () => Promise<string | undefined>;
  /** Waits; injectable so tests need not sleep. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /**
   * Check every 2xx reply against its route's schema in the served OpenAPI document (default
   * true): a reply that does not match is `invalid_response`. Off only to save the cost where the
   * server is trusted.
   */
  validateReplies?: boolean;
  /**
   * The User-Agent sent on every request (the spec asks server-side integrations for a
   * descriptive one): name your integration, e.g. `my-shop/2.1 (+https://my-shop.example)`.
   * Default `counterparty-marketplace-client/<version>` outside a browser; a browser sends its own.
   */
  userAgent?: string;
}

/** This package's own User-Agent, when the integration names none. */
export const DEFAULT_USER_AGENT = 'counterparty-marketplace-client/0.1.0';
const inBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined';

/** What a route takes: its path parameters (when it has any), query, body. */
export type CallInput<K extends RouteKey> = (Routes[K] extends { params: infer P } ? { params: P } : { params?: undefined }) &
  (Routes[K] extends { body: infer B } ? { body: B } : Routes[K] extends { body?: infer B } ? { body?: B } : { body?: undefined }) & {
    query?: Routes[K] extends { query?: infer Q } ? Q : undefined;
    idempotent?: boolean;
    signal?: AbortSignal;
  };

/** A route's 2xx reply (the envelope) and its `result`. */
export type Reply<K extends RouteKey> = Routes[K]['response'];
export type Result<K extends RouteKey> = Reply<K> extends { result: infer R } ? R : never;

/** `/v1/x/{id}` with `{id: 'a b'}` → `/v1/x/a%20b`. */
function fill(template: string, params: Record<string, unknown> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params?.[name];
    if (v === undefined || v === null) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(String(v));
  });
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** The contract makes this write safe to repeat: retry it like a read. */
  idempotent?: boolean;
  signal?: AbortSignal;
}

const RETRY_STATUS = new Set([429, 502, 503, 504]);

export class Transport {
  private readonly fetch: FetchLike;
  private readonly validator: ReplyValidator | undefined;

  constructor(private readonly o: TransportOptions) {
    const f = o.fetch ?? (globalThis.fetch as unknown as FetchLike | undefined);
    if (!f) throw new Error('no fetch: pass options.fetch');
    this.fetch = f;
    this.validator = o.validateReplies === false ? undefined : new ReplyValidator();
  }

  /** A route of the API by its key, typed from the served document: `call('GET /v1/checkout/quotes/{id}', { params: { id } })`. */
  async call<K extends RouteKey>(route: K, input: CallInput<K>): Promise<{ status: number; result: Result<K>; body: Reply<K> }> {
    const [method, template] = (route as string).split(' ') as ['GET' | 'POST' | 'PATCH' | 'DELETE', string];
    const r = await this.request<Result<K>>(method, fill(template, input.params as Record<string, unknown> | undefined), {
      ...(input.query ? { query: input.query as Record<string, string | number | undefined> } : {}),
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.idempotent ? { idempotent: true } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    return { status: r.status, result: r.result, body: r.body as Reply<K> };
  }

  async request<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, opts: RequestOptions = {}): Promise<{ status: number; result: T; body: Record<string, unknown> }> {
    const retryable = method === 'GET' || opts.idempotent === true;
    const attempts = retryable ? (this.o.maxAttempts ?? 4) : 1;
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once<T>(method, path, opts);
      } catch (e) {
        if (!(e instanceof MarketError)) throw e;
        // A refused sign-in is the answer itself: signing in again behind it would hide the refusal.
        if (e.status === 401 && !refreshed && this.o.onUnauthorized && !path.startsWith('/v1/auth/')) {
          refreshed = true;
          if (await this.o.onUnauthorized()) {
            attempt--;
            continue;
          }
        }
        const again = retryable && attempt < attempts && (e.code === 'network_error' || e.code === 'timeout' || (e.status !== null && RETRY_STATUS.has(e.status)));
        if (!again) throw e;
        const base = this.o.backoffMs ?? 250;
        const jitter = Math.floor((this.o.random ?? Math.random)() * base * 2 ** (attempt - 1));
        await (this.o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(Math.max(jitter, (e.retryAfterSeconds ?? 0) * 1000));
      }
    }
  }

  /** The URL of `path` under the base, with the query's defined values. */
  private url(path: string, query: RequestOptions['query']): string {
    const url = new URL(path.replace(/^\//, ''), this.o.baseUrl.endsWith('/') ? this.o.baseUrl : `${this.o.baseUrl}/`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const token = this.o.token?.();
    const ua = this.o.userAgent ?? (inBrowser ? undefined : DEFAULT_USER_AGENT);
    return { accept: 'application/json', ...(ua ? { 'user-agent': ua } : {}), ...(token ? { 'x-session-token': token } : {}), ...extra };
  }

  /** One fetch, its failure to answer mapped to aborted / timeout / network_error. */
  private async send(url: string, init: { method: string; headers: Record<string, string>; body?: string }, signal: AbortSignal | undefined, timeoutMs: number | null): Promise<FetchReply> {
    const timeout = timeoutMs === null ? undefined : AbortSignal.timeout(timeoutMs);
    const both = [signal, timeout].filter((x): x is AbortSignal => x !== undefined);
    try {
      return await this.fetch(url, { ...init, ...(both.length ? { signal: both.length === 1 ? both[0]! : AbortSignal.any(both) } : {}) });
    } catch (e) {
      if (signal?.aborted) throw new MarketError('aborted', 'the caller aborted the request', null);
      if (timeout?.aborted) throw new MarketError('timeout', `no answer within ${timeoutMs} ms`, null);
      throw new MarketError('network_error', `request failed: ${e instanceof Error ? e.message : String(e)}`, null);
    }
  }

  private async once<T>(method: string, path: string, opts: RequestOptions) {
    const headers = this.headers(opts.body === undefined ? {} : { 'content-type': 'application/json' });
    const res = await this.send(this.url(path, opts.query), { method, headers, ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }) }, opts.signal, this.o.timeoutMs ?? 15_000);
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw failure(res, text);
    const body = envelope(res.status, text);
    if (!('result' in body)) throw new MarketError('invalid_response', `HTTP ${res.status} without result`, res.status);
    const route = this.validator && routeOf(method, path);
    const wrong = route && this.validator!.check(route, res.status, body);
    if (wrong) throw new MarketError('invalid_response', `HTTP ${res.status} from ${route} does not match its schema: ${wrong}`, res.status, { route });
    return { status: res.status, result: body.result as T, body };
  }

  /**
   * Opens a long-lived GET (an event stream) with extra headers: the 2xx reply with its body
   * unread, or the failure as MarketError. The per-attempt timeout covers the headers only.
   */
  async open(path: string, opts: { query?: RequestOptions['query']; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<FetchReply> {
    const url = this.url(path, opts.query);
    const init = { method: 'GET', headers: this.headers(opts.headers ?? {}) };
    const connect = new AbortController();
    const timer = setTimeout(() => connect.abort(), this.o.timeoutMs ?? 15_000);
    try {
      const res = await this.send(url, init, opts.signal ? AbortSignal.any([opts.signal, connect.signal]) : connect.signal, null).catch((e: unknown) => {
        if (connect.signal.aborted && !opts.signal?.aborted) throw new MarketError('timeout', `no answer within ${this.o.timeoutMs ?? 15_000} ms`, null);
        throw e;
      });
      if (res.status >= 200 && res.status < 300) return res;
      throw failure(res, await res.text());
    } finally {
      clearTimeout(timer);
    }
  }
}

function envelope(status: number, text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new MarketError('invalid_response', `HTTP ${status} with a body that is not JSON (${text.slice(0, 80)})`, status);
  }
  if (typeof body !== 'object' || body === null) throw new MarketError('invalid_response', `HTTP ${status}: not an envelope`, status);
  return body as Record<string, unknown>;
}

/** A non-2xx reply as the MarketError of its envelope (`Retry-After` folded into the extras). */
function failure(res: FetchReply, text: string): MarketError {
  const { code, error, ...extras } = envelope(res.status, text) as { code?: unknown; error?: unknown; [k: string]: unknown };
  if (typeof code !== 'string') return new MarketError('invalid_response', `HTTP ${res.status} without an error code`, res.status, { code, error, ...extras });
  const header = res.headers.get('retry-after');
  if (extras.retry_after_seconds === undefined && header && /^\d+$/.test(header)) extras.retry_after_seconds = Number(header);
  return new MarketError(code, typeof error === 'string' ? error : code, res.status, extras);
}
