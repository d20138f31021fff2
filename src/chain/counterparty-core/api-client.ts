/**
 * HTTP client of Counterparty Core's API v2: GET with timeouts, retries on
 * transport failures, the `{result, next_cursor, result_count}` envelope, the
 * readiness headers, and cursor paging. Replies are parsed with
 * parseJsonExact so 64-bit quantities stay exact.
 */
import { UpstreamUnavailable } from '../ports.js';
import { describeFetchError, splitCredentials, withRetries, type ChainLogger, type RetryPolicy } from '../upstream-http.js';
import { parseJsonExact } from './safe-json.js';

/** What Core says about itself on every reply. */
export interface CpHeaders {
  counterpartyHeight: number | null;
  bitcoinHeight: number | null;
  /** null when the header is absent (older Core or a proxy that strips it). */
  ready: boolean | null;
}

export interface CpReply<T> {
  status: number;
  result: T;
  nextCursor: string | number | null;
  resultCount: number | null;
  headers: CpHeaders;
}

/** Core answered 400 (bad address, bad parameter): our request was wrong, retrying cannot help. */
export class CounterpartyRequestError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    readonly apiError: string,
  ) {
    super(`counterparty ${path}: HTTP ${status} ${apiError}`);
    this.name = 'CounterpartyRequestError';
  }
}

export interface CpClientOptions {
  /** Base URL, e.g. `http://127.0.0.1:4000` (credentials allowed, sent as Basic auth). */
  url: string;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  logger?: ChainLogger;
}

type Query = Record<string, string | number | boolean | undefined>;

/** Python's `str(bool)` is `True`/`False`; accept the JSON spellings too. */
function parseBoolHeader(v: string | null): boolean | null {
  if (v === null) return null;
  const s = v.trim().toLowerCase();
  return s === 'true' || s === '1';
}

function parseIntHeader(v: string | null): number | null {
  if (v === null || !/^\d+$/.test(v.trim())) return null; // Core writes `None` before it knows a height
  return Number(v.trim());
}

export class CounterpartyApiClient {
  readonly display: string;
  private readonly base: URL;
  private readonly authorization: string | null;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly logger: ChainLogger | undefined;

  constructor(opts: CpClientOptions) {
    const split = splitCredentials(opts.url);
    this.base = new URL(split.url);
    this.display = split.display;
    this.authorization = split.authorization;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.retry = { retries: opts.retry?.retries ?? 3, backoffMs: opts.retry?.backoffMs ?? 250, maxBackoffMs: opts.retry?.maxBackoffMs ?? 5_000 };
    this.logger = opts.logger;
  }

  /**
   * One GET. Returns null on 404 (Core's "Not found" for an unknown asset);
   * throws UpstreamUnavailable on 503 unless `acceptNotReady` (the status route
   * wants to read the headers of a not-ready node).
   */
  async get<T>(path: string, query: Query = {}, opts: { acceptNotReady?: boolean } = {}): Promise<CpReply<T> | null> {
    const res = await withRetries(
      () => this.fetchOnce(path, query),
      this.retry,
      // 503 is Core's "not caught up yet": a state measured in blocks, not a blip worth hammering.
      (e) => e instanceof UpstreamUnavailable && e.status === 502,
      (e, attempt, delayMs) =>
        this.logger?.warn({ backend: 'counterparty', node: this.display, path, attempt, delayMs, err: (e as Error).message }, 'counterparty api retry'),
    );
    const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as Record<string, unknown>;
    const apiError = typeof body.error === 'string' ? body.error : null;
    if (res.status === 404) return null;
    if (res.status === 503 && !opts.acceptNotReady) {
      throw new UpstreamUnavailable('counterparty', `counterparty ${path}: ${apiError ?? 'not ready'} (HTTP 503)`, 503);
    }
    if (res.status === 400 || (res.status === 200 && apiError !== null && !('result' in body))) {
      throw new CounterpartyRequestError(path, res.status, apiError ?? 'bad request');
    }
    if (res.status !== 200 && res.status !== 503) {
      throw new UpstreamUnavailable('counterparty', `counterparty ${path}: unexpected HTTP ${res.status}`, 502);
    }
    return {
      status: res.status,
      result: body.result as T,
      nextCursor: (body.next_cursor as string | number | null | undefined) ?? null,
      resultCount: typeof body.result_count === 'number' ? body.result_count : null,
      headers: res.headers,
    };
  }

  /**
   * Every row of a list route, following `next_cursor` to the end. Core's cursor
   * is inclusive (the first row of the next page), so we pass it back as is.
   */
  async getAll<T>(path: string, query: Query = {}, pageSize = 1000): Promise<{ rows: T[]; headers: CpHeaders } | null> {
    const rows: T[] = [];
    const seen = new Set<string>();
    let cursor: string | number | null = null;
    for (;;) {
      const page: CpReply<T[]> | null = await this.get<T[]>(path, { ...query, limit: pageSize, cursor: cursor ?? undefined });
      if (!page) return null;
      if (!Array.isArray(page.result)) throw new UpstreamUnavailable('counterparty', `counterparty ${path}: result is not a list`, 502);
      rows.push(...page.result);
      if (page.nextCursor === null || page.result.length === 0) return { rows, headers: page.headers };
      const key = String(page.nextCursor);
      // A cursor that comes back twice would loop forever: treat it as a broken upstream.
      if (seen.has(key)) throw new UpstreamUnavailable('counterparty', `counterparty ${path}: cursor ${key} repeated`, 502);
      seen.add(key);
      cursor = page.nextCursor;
    }
  }

  private urlFor(path: string, query: Query): string {
    const url = new URL(this.base.toString());
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  private async fetchOnce(path: string, query: Query): Promise<{ status: number; body: unknown; headers: CpHeaders }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.authorization) headers.authorization = this.authorization;
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.urlFor(path, query), { headers, signal: AbortSignal.timeout(this.timeoutMs) });
      text = await res.text();
    } catch (e) {
      throw new UpstreamUnavailable('counterparty', `counterparty ${path}: ${describeFetchError(e, this.timeoutMs).message}`, 502);
    }
    if (res.status === 401 || res.status === 403) {
      throw new UpstreamUnavailable('counterparty', `counterparty ${path}: API refused the credentials (HTTP ${res.status})`, 503);
    }
    let body: unknown;
    try {
      body = parseJsonExact(text);
    } catch {
      // A 503 from a proxy in front of Core is still "not available"; anything else unparsable is garbage.
      if (res.status === 503) body = {};
      else throw new UpstreamUnavailable('counterparty', `counterparty ${path}: reply is not JSON (HTTP ${res.status})`, 502);
    }
    if (res.status >= 500 && res.status !== 503) {
      throw new UpstreamUnavailable('counterparty', `counterparty ${path}: HTTP ${res.status}`, 502);
    }
    return {
      status: res.status,
      body,
      headers: {
        counterpartyHeight: parseIntHeader(res.headers.get('x-counterparty-height')),
        bitcoinHeight: parseIntHeader(res.headers.get('x-bitcoin-height')),
        ready: parseBoolHeader(res.headers.get('x-counterparty-ready')),
      },
    };
  }
}
