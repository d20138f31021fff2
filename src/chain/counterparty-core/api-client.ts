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

/**
 * Core answers 400 for every Electrs failure (`counterpartycore/lib/backend/electrs.py`: an
 * ElectrsError is one of the request errors apiserver.py renders as 400). Its two messages are a
 * fixed vocabulary of Core's, read here as data, the way the chain layer reads Bitcoin Core's
 * reject reasons: not our request's fault, but Core's address index being absent or down.
 */
export type ElectrsFailure = 'not_configured' | 'backends_failed';

export function electrsFailureOf(apiError: string): ElectrsFailure | null {
  const text = apiError.trim();
  if (text.startsWith('Electrs server not configured')) return 'not_configured';
  if (text.startsWith('All Electrs backends failed')) return 'backends_failed';
  return null;
}

/** What the operator has to do about each, for the log line. */
export const ELECTRS_ADVICE: Record<ElectrsFailure, string> = {
  not_configured:
    'Counterparty Core runs without Electrs: start counterparty-server with --electrs-url=<Esplora/Electrs HTTP API>, or set UTXO_SOURCE=bitcoin-core so the market reads wallet coins from Bitcoin Core (scantxoutset)',
  backends_failed:
    'every Electrs server Counterparty Core is configured with (--electrs-url) failed: check that the Electrs/Esplora HTTP API is up and synced, or set UTXO_SOURCE=bitcoin-core',
};

/** Seconds a caller should wait: an unconfigured Electrs needs an operator, a failed one a restart. */
const ELECTRS_RETRY_AFTER: Record<ElectrsFailure, number> = { not_configured: 60, backends_failed: 15 };

/** Core's address index failed (an upstream failure, rendered 503 `upstream_unavailable`). */
export class ElectrsUnavailable extends UpstreamUnavailable {
  constructor(
    path: string,
    readonly failure: ElectrsFailure,
    coreError: string,
  ) {
    super('counterparty', `counterparty ${path}: ${coreError} (HTTP 400, Electrs)`, 503, { cause: 'electrs', retryAfterSeconds: ELECTRS_RETRY_AFTER[failure] });
    this.name = 'ElectrsUnavailable';
  }
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
  private readonly electrsWarnedAt = new Map<ElectrsFailure, number>();

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
      async () => {
        const r = await this.fetchOnce(path, query);
        this.throwIfElectrsFailed(path, r);
        return r;
      },
      this.retry,
      // 503 is Core's "not caught up yet": a state measured in blocks, not a blip worth hammering.
      // A failed Electrs may come back within the retries; an unconfigured one never does.
      (e) => (e instanceof ElectrsUnavailable ? e.failure === 'backends_failed' : e instanceof UpstreamUnavailable && e.status === 502),
      (e, attempt, delayMs) =>
        this.logger?.warn({ backend: 'counterparty', node: this.display, path, attempt, delayMs, err: (e as Error).message }, 'counterparty api retry'),
    );
    const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as Record<string, unknown>;
    const apiError = typeof body.error === 'string' ? body.error : null;
    if (res.status === 404) return null;
    if (res.status === 503 && !opts.acceptNotReady) {
      throw new UpstreamUnavailable('counterparty', `counterparty ${path}: ${apiError ?? 'not ready'} (HTTP 503)`, 503, { retryAfterSeconds: 30 });
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

  /** An Electrs 400 becomes an upstream failure, with one log line (per kind and minute) for the operator. */
  private throwIfElectrsFailed(path: string, res: { status: number; body: unknown }): void {
    if (res.status !== 400 || typeof res.body !== 'object' || res.body === null) return;
    const apiError = (res.body as Record<string, unknown>).error;
    const kind = typeof apiError === 'string' ? electrsFailureOf(apiError) : null;
    if (!kind) return;
    const now = Date.now();
    if (now - (this.electrsWarnedAt.get(kind) ?? -Infinity) >= 60_000) {
      this.electrsWarnedAt.set(kind, now);
      this.logger?.warn({ backend: 'counterparty', node: this.display, path, electrs: kind, core_error: apiError, fix: ELECTRS_ADVICE[kind] }, `counterparty electrs failure: ${ELECTRS_ADVICE[kind]}`);
    }
    throw new ElectrsUnavailable(path, kind, String(apiError));
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
