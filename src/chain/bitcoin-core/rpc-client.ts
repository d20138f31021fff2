/**
 * A minimal Bitcoin Core JSON-RPC client over Node's fetch: timeouts, bounded
 * retries for reads, batches, and the mapping of transport failures to
 * `UpstreamUnavailable`. RPC errors the node answers deliberately (bad
 * parameter, unknown block, rejected transaction) come back as `RpcError` for
 * the backend to interpret per method.
 */
import { UpstreamUnavailable } from '../ports.js';
import { describeFetchError, splitCredentials, withRetries, type ChainLogger, type RetryPolicy } from '../upstream-http.js';

/** Bitcoin Core's RPC error codes that the adapter branches on (src/rpc/protocol.h). */
export const RPC = {
  MISC_ERROR: -1,
  TYPE_ERROR: -3,
  INVALID_ADDRESS_OR_KEY: -5,
  INVALID_PARAMETER: -8,
  CLIENT_IN_INITIAL_DOWNLOAD: -10,
  DESERIALIZATION_ERROR: -22,
  VERIFY_ERROR: -25,
  VERIFY_REJECTED: -26,
  VERIFY_ALREADY_IN_CHAIN: -27,
  IN_WARMUP: -28,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  PARSE_ERROR: -32700,
} as const;

/** An error object the node returned for one call. */
export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`bitcoin rpc ${method}: ${code} ${rpcMessage}`);
    this.name = 'RpcError';
  }
}

export interface RpcClientOptions {
  /** `http://user:pass@host:8332[/wallet/name]`; credentials go to a header, never to logs. */
  url: string;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  logger?: ChainLogger;
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** Wrong credentials do not heal with time: not retried. */
class CredentialsRefused extends UpstreamUnavailable {}

type RpcReply = { result?: unknown; error?: { code: number; message: string } | null; id?: unknown };

const isReply = (v: unknown): v is RpcReply => typeof v === 'object' && v !== null && !Array.isArray(v);

export class BitcoinRpcClient {
  readonly display: string;
  private readonly url: string;
  private readonly authorization: string | null;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly logger: ChainLogger | undefined;
  private nextId = 1;

  constructor(opts: RpcClientOptions) {
    const split = splitCredentials(opts.url);
    this.url = split.url;
    this.display = split.display;
    this.authorization = split.authorization;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.retry = { retries: opts.retry?.retries ?? 3, backoffMs: opts.retry?.backoffMs ?? 250, maxBackoffMs: opts.retry?.maxBackoffMs ?? 5_000 };
    this.logger = opts.logger;
  }

  /**
   * One call. `idempotent` reads are retried on transport failures and warm-up;
   * writes get exactly one attempt (with their own, usually longer, timeout).
   */
  async call<T>(method: string, params: unknown[], opts: { idempotent: boolean; timeoutMs?: number }): Promise<T> {
    const run = async (): Promise<T> => {
      const body = await this.post({ jsonrpc: '1.0', id: this.nextId++, method, params }, method, opts.timeoutMs);
      if (!isReply(body)) throw new UpstreamUnavailable('bitcoin', `bitcoin ${method}: reply is not a JSON-RPC object`, 502);
      return this.unwrap<T>(method, body);
    };
    return opts.idempotent ? this.retrying(method, run) : run();
  }

  /**
   * Several reads in one HTTP request (Core answers a batch with 200 and one
   * reply per call, in any order, matched by id). Each entry is the result or
   * the RpcError of that call; transport failures reject the whole batch.
   */
  async batch(calls: RpcCall[]): Promise<Array<unknown | RpcError>> {
    const label = calls.map((c) => c.method).join(',');
    return this.retrying(label, async () => {
      const first = this.nextId;
      this.nextId += calls.length;
      const payload = calls.map((c, i) => ({ jsonrpc: '1.0', id: first + i, method: c.method, params: c.params }));
      const body = await this.post(payload, label);
      if (!Array.isArray(body)) throw new UpstreamUnavailable('bitcoin', `bitcoin batch: reply is not an array`, 502);
      const byId = new Map<unknown, RpcReply>();
      for (const r of body) if (isReply(r)) byId.set(r.id, r);
      return calls.map((c, i) => {
        const reply = byId.get(first + i);
        if (!reply) throw new UpstreamUnavailable('bitcoin', `bitcoin batch: no reply for ${c.method}`, 502);
        try {
          return this.unwrap(c.method, reply);
        } catch (e) {
          if (e instanceof RpcError) return e;
          throw e;
        }
      });
    });
  }

  private unwrap<T>(method: string, reply: RpcReply): T {
    if (reply.error) {
      const { code, message } = reply.error;
      // -28 (loading block index, verifying blocks, …): the node is up but not serving yet.
      if (code === RPC.IN_WARMUP) throw new UpstreamUnavailable('bitcoin', `bitcoin ${method}: node warming up (${message})`, 503);
      throw new RpcError(method, code, message);
    }
    return reply.result as T;
  }

  private async post(payload: unknown, label: string, timeoutMs = this.timeoutMs): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.authorization) headers.authorization = this.authorization;
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(payload), signal: AbortSignal.timeout(timeoutMs) });
      text = await res.text();
    } catch (e) {
      const { message } = describeFetchError(e, timeoutMs);
      throw new UpstreamUnavailable('bitcoin', `bitcoin ${label}: ${message}`, 502);
    }
    if (res.status === 401 || res.status === 403) {
      throw new CredentialsRefused('bitcoin', `bitcoin ${label}: node refused the credentials (HTTP ${res.status})`, 502);
    }
    // Legacy JSON-RPC answers errors with 500 (404 for an unknown method) and a
    // JSON body; that body is the node's answer, not an outage.
    let parsed: unknown;
    try {
      parsed = text.length ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined && (Array.isArray(parsed) || (isReply(parsed) && ('result' in parsed || 'error' in parsed)))) {
      return parsed;
    }
    // 503 is Core's "work queue depth exceeded"; other 5xx come from proxies in front of it.
    if (res.status === 503) throw new UpstreamUnavailable('bitcoin', `bitcoin ${label}: node busy (HTTP 503)`, 503);
    throw new UpstreamUnavailable('bitcoin', `bitcoin ${label}: unexpected HTTP ${res.status} reply`, 502);
  }

  private retrying<T>(label: string, fn: () => Promise<T>): Promise<T> {
    return withRetries(fn, this.retry, (e) => e instanceof UpstreamUnavailable && !(e instanceof CredentialsRefused), (e, attempt, delayMs) =>
      this.logger?.warn({ backend: 'bitcoin', node: this.display, call: label, attempt, delayMs, err: (e as Error).message }, 'bitcoin rpc retry'),
    );
  }
}
