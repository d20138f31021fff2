/**
 * When to try an endpoint again, as pure functions (the dispatcher injects the schedule and the
 * random source, so tests run a whole retry story in milliseconds).
 *
 * The default schedule is Standard Webhooks' example: after the first failure 5 s, then 5 min,
 * 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, then every 24 h; each delay moves by up to ±20 % of
 * jitter so receivers that fail together are not retried together. A 429 or 503 with
 * `Retry-After` waits at least that long (capped at 24 h). An endpoint with no success for
 * WEBHOOK_DISABLE_AFTER_HOURS (72 by default) is disabled.
 */
const S = 1000;
const M = 60 * S;
const H = 60 * M;

export const DEFAULT_SCHEDULE_MS: readonly number[] = [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H];
export const MAX_DELAY_MS = 24 * H;

export interface RetryPolicy {
  /** Delay after the 1st, 2nd, … consecutive failure; the last entry repeats. */
  scheduleMs: readonly number[];
  /** Fraction of each delay the jitter may move it either way (0..1). */
  jitter: number;
  /** [0, 1), e.g. Math.random. */
  random: () => number;
}

export const defaultRetryPolicy = (): RetryPolicy => ({ scheduleMs: DEFAULT_SCHEDULE_MS, jitter: 0.2, random: Math.random });

/** Milliseconds to wait after `failures` consecutive failures (≥ 1), honouring a Retry-After already parsed to ms. */
export function retryDelayMs(policy: RetryPolicy, failures: number, retryAfterMs: number | null): number {
  const schedule = policy.scheduleMs.length ? policy.scheduleMs : DEFAULT_SCHEDULE_MS;
  const base = schedule[Math.min(Math.max(failures, 1), schedule.length) - 1]!;
  const jittered = Math.round(base * (1 + policy.jitter * (2 * policy.random() - 1)));
  return Math.min(Math.max(jittered, retryAfterMs ?? 0, 0), MAX_DELAY_MS);
}

/** Statuses whose Retry-After is honoured (the receiver asks for a pause). */
export const honoursRetryAfter = (status: number): boolean => status === 429 || status === 503;

/**
 * `Retry-After` as milliseconds from `nowMs`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
 * Anything else, or a date in the past, is null (no pause asked).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,10}$/.test(v)) return Math.min(Number(v) * S, MAX_DELAY_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at) || at <= nowMs) return null;
  return Math.min(at - nowMs, MAX_DELAY_MS);
}

/** Whether a run of failures that began at `failingSince` has lasted long enough to disable the endpoint. */
export const failingTooLong = (failingSince: number | null, nowMs: number, disableAfterMs: number): boolean =>
  failingSince !== null && nowMs - failingSince >= disableAfterMs;
