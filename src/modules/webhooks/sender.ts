/**
 * One HTTP attempt at a webhook, through undici (the library behind Node's fetch) with an agent
 * of our own: its sockets resolve through `guardedLookup`, so the addresses judged are the ones
 * connected to; redirects are never followed (a 3xx is a failure: the owner should fix the URL);
 * the whole attempt is bounded by a timeout; at most `maxResponseBytes` of the answer is read
 * and the rest discarded (only the status matters).
 */
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import type { DeliveryOutcome } from './tables.js';
import { checkLiteralHost, guardedLookup, UrlRefused, type UrlRules } from './url-rules.js';
import { honoursRetryAfter, parseRetryAfter } from './retry-policy.js';

export interface AttemptResult {
  outcome: Exclude<DeliveryOutcome, 'queued' | 'sending'>;
  status: number | null;
  durationMs: number;
  error: string | null;
  /** A pause the receiver asked for (429/503 with Retry-After), ms. */
  retryAfterMs: number | null;
}

export interface SenderOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  userAgent: string;
}

const isTimeout = (e: unknown): boolean => {
  const name = (e as { name?: string; code?: string } | null)?.name ?? '';
  const code = (e as { code?: string } | null)?.code ?? '';
  return name === 'TimeoutError' || name === 'AbortError' || /TIMEOUT/.test(code);
};

function refusal(e: unknown): UrlRefused | null {
  for (let c: unknown = e, i = 0; c && i < 4; c = (c as { cause?: unknown }).cause, i++) if (c instanceof UrlRefused) return c;
  return null;
}

/**
 * undici is loaded at the first attempt, not with the process: about 3 MB of heap (its ~100
 * modules) that a market with no webhook registered would hold idle for nothing
 * (docs/performance.md, idle memory).
 */
const importUndici = () => import('undici');
let undici: ReturnType<typeof importUndici> | undefined;
const loadUndici = () => (undici ??= importUndici());

export class WebhookSender {
  private agent: Promise<Agent> | undefined;

  constructor(
    private readonly rules: UrlRules,
    private readonly opts: SenderOptions,
  ) {}

  private agentOf(): Promise<Agent> {
    return (this.agent ??= loadUndici().then(
      ({ Agent }) =>
        new Agent({
          connect: { lookup: guardedLookup(this.rules), timeout: this.opts.timeoutMs },
          headersTimeout: this.opts.timeoutMs,
          bodyTimeout: this.opts.timeoutMs,
          keepAliveTimeout: 4_000,
        }),
    ));
  }

  /** POSTs `body` with `headers`; never throws: every way to fail is an outcome. */
  async send(url: string, body: string, headers: Record<string, string>, nowMs: number): Promise<AttemptResult> {
    const t0 = performance.now();
    const took = () => Math.round(performance.now() - t0);
    try {
      checkLiteralHost(new URL(url), this.rules);
      const { request } = await loadUndici();
      const res = await request(url, {
        method: 'POST',
        dispatcher: await this.agentOf(),
        headers: { 'content-type': 'application/json', 'user-agent': this.opts.userAgent, ...headers },
        body,
        maxRedirections: 0,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      // The status is the answer; a bounded read of the body lets the connection be reused.
      await res.body.dump({ limit: this.opts.maxResponseBytes }).catch(() => undefined);
      const status = res.statusCode;
      const header = res.headers['retry-after'];
      const retryAfterMs = honoursRetryAfter(status) ? parseRetryAfter(Array.isArray(header) ? header[0] : header, nowMs) : null;
      const outcome = status >= 200 && status < 300 ? 'succeeded' : status === 410 ? 'gone' : 'failed';
      return { outcome, status, durationMs: took(), error: outcome === 'succeeded' ? null : `HTTP ${status}`, retryAfterMs };
    } catch (e) {
      const refused = refusal(e);
      if (refused) return { outcome: 'refused_address', status: null, durationMs: took(), error: refused.message, retryAfterMs: null };
      const message = e instanceof Error ? e.message : String(e);
      if (isTimeout(e)) return { outcome: 'timeout', status: null, durationMs: took(), error: `no answer within ${this.opts.timeoutMs} ms`, retryAfterMs: null };
      return { outcome: 'network_error', status: null, durationMs: took(), error: message.slice(0, 300), retryAfterMs: null };
    }
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }
}
