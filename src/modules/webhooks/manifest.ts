import type { Area } from '../../area.js';
import type { Context } from '../../context.js';
import { WebhookDispatcher } from './dispatcher.js';
import type { WebhookEventSource } from './event-source.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry-policy.js';
import { webhookRoutes } from './routes.js';
import { WebhookSender } from './sender.js';
import { urlRulesOf } from './service.js';
import { eventLogSource } from './event-log-source.js';

export const DISPATCHER_JOB = 'webhook-dispatcher';
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** The default retry policy, with the schedule WEBHOOK_RETRY_SCHEDULE_MS sets when it is set. */
function configuredPolicy(schedule: string | undefined): RetryPolicy {
  const policy = defaultRetryPolicy();
  return schedule ? { ...policy, scheduleMs: schedule.split(',').map(Number) } : policy;
}

/** The dispatcher of a context: the sender with the context's URL rules and timeout, the default retry policy unless given. */
export function dispatcherOf(ctx: Context, source: WebhookEventSource, opts: { policy?: RetryPolicy; clock?: Context['clock'] } = {}): WebhookDispatcher {
  const sender = new WebhookSender(urlRulesOf(ctx), { timeoutMs: ctx.config.WEBHOOK_TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES, userAgent: 'counterparty-market-webhooks/1' });
  return new WebhookDispatcher({
    db: ctx.store.db,
    source,
    sender,
    clock: opts.clock ?? ctx.clock,
    policy: opts.policy ?? configuredPolicy(ctx.config.WEBHOOK_RETRY_SCHEDULE_MS),
    disableAfterMs: ctx.config.WEBHOOK_DISABLE_AFTER_HOURS * 3600_000,
    leaseMs: ctx.config.WEBHOOK_TIMEOUT_MS + 30_000,
    onError: (endpoint, e) => ctx.logger.warn({ endpoint, err: e instanceof Error ? e.message : String(e) }, 'webhook endpoint skipped this run'),
  });
}

/** Webhooks over a given event source (tests hand one in; the service uses the ordered event log). */
export function webhooksAreaOver(sourceOf: (ctx: Context) => WebhookEventSource): Area {
  return {
    name: 'webhooks',
    routes: (app, ctx) => webhookRoutes(sourceOf(ctx))(app, ctx),
    // One dispatching instance at a time (src/cluster/); the endpoint leases keep a stale one from sending twice at once.
    jobs: (ctx) => [{ ...dispatcherOf(ctx, sourceOf(ctx)).job(DISPATCHER_JOB, ctx.config.WEBHOOK_INTERVAL_MS), role: 'webhook-dispatcher' }],
  };
}

/** Signed webhooks of the owners' events, read from the ordered event log. */
export const webhooksArea: Area = webhooksAreaOver(eventLogSource);
