/**
 * What both production adapters (Bitcoin Core JSON-RPC, Counterparty API v2) share over HTTP:
 * bounded retries with exponential backoff and jitter, credentials split from the URL, and
 * fetch errors described without secrets. Only idempotent reads go through the retries: a
 * broadcast that timed out may still have reached the node, so repeating it would hide that
 * uncertainty from the settlement journal.
 */

/** The small logging surface the adapters need; a pino logger satisfies it. */
export interface ChainLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface RetryPolicy {
  /** Extra attempts after the first one. */
  retries: number;
  /** Delay before the first retry; doubles each time, with ±25% jitter. */
  backoffMs: number;
  /** Upper bound of one delay. */
  maxBackoffMs?: number;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const base = Math.min(policy.backoffMs * 2 ** attempt, policy.maxBackoffMs ?? 5_000);
  const jitter = base * 0.25 * (Math.random() * 2 - 1);
  return Math.max(0, Math.round(base + jitter));
}

/**
 * Runs `fn` until it succeeds, throws an error `isRetryable` refuses, or the
 * attempts run out (then the last error is thrown).
 */
export async function withRetries<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  isRetryable: (e: unknown) => boolean,
  onRetry?: (e: unknown, attempt: number, delayMs: number) => void,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (attempt >= policy.retries || !isRetryable(e)) throw e;
      const delay = backoffDelay(policy, attempt);
      onRetry?.(e, attempt + 1, delay);
      await sleep(delay);
    }
  }
}

/** A short description of a fetch failure that never includes the request URL. */
export function describeFetchError(e: unknown, timeoutMs: number): { message: string; timeout: boolean } {
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) {
    return { message: `timed out after ${timeoutMs} ms`, timeout: true };
  }
  // undici wraps socket errors as `TypeError: fetch failed` with the system error in `cause`.
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : null;
  const code = cause && 'code' in cause && typeof cause.code === 'string' ? cause.code : null;
  if (code) return { message: `connection failed (${code})`, timeout: false };
  return { message: `connection failed (${e instanceof Error ? e.message : String(e)})`, timeout: false };
}

/**
 * Splits `http://user:pass@host:port/path` into a credential-free URL and a Basic
 * Authorization header: fetch refuses URLs with credentials, and the credentials
 * must never reach a log line or an error message.
 */
export function splitCredentials(raw: string): { url: string; display: string; authorization: string | null } {
  const parsed = new URL(raw);
  let authorization: string | null = null;
  if (parsed.username || parsed.password) {
    const user = decodeURIComponent(parsed.username);
    const pass = decodeURIComponent(parsed.password);
    authorization = `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}`;
    parsed.username = '';
    parsed.password = '';
  }
  const url = parsed.toString();
  return { url, display: `${parsed.protocol}//${parsed.host}`, authorization };
}
