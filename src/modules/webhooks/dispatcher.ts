/**
 * The webhook dispatcher: a job (src/jobs/runner.ts, declared in the area's manifest) that brings
 * every active endpoint up to its owner's events in the ordered log.
 *
 * Per endpoint, in order and at least once: the event after its cursor (`last_seq`) is sent, and
 * only a 2xx moves the cursor past it; a failure keeps the event at the head and schedules the
 * next attempt by the retry policy (a 429/503 Retry-After waits at least that long). Nothing
 * behind a failing event is sent, so a receiver sees the owner's events in log order. A 410
 * disables the endpoint at once; a run of failures lasting WEBHOOK_DISABLE_AFTER_HOURS disables
 * it too. A dispatcher sends to an endpoint only under its lease (renewed before each attempt,
 * long enough for one attempt), so two dispatchers (two instances, or two runs) never send to one
 * endpoint at once; every attempt writes one delivery-log row in the transaction that moves the
 * endpoint, guarded on the state it read, so not even an expired lease can advance a cursor
 * twice. The lease carries the leader epoch of the webhook role the run holds (src/cluster/):
 * when a leader dies mid-attempt, the next leader (a newer epoch) takes its leases over at once,
 * and a stale leader still running has its renewal and its record fenced out. So an
 * event whose 2xx was recorded is never sent again, and one in flight when its sender died is
 * sent again by the next leader: a crash between the send and that commit re-sends the event,
 * at least once, deduplicated by the receiver on (webhook-id, seq). Every log entry is sent,
 * including one that carries an event already sent under the same event_id with a higher seq (a
 * sold listing's listing_filled again with its new status, a re-confirmation after a
 * retraction): that is news the receiver must learn, and the document tells receivers to take a
 * higher seq as news. Replays the owner queued are taken by one
 * dispatcher each and sent once, outside the order.
 */
import crypto from 'node:crypto';
import type { Db, Tx } from '../../store/db.js';
import type { Clock } from '../../clock.js';
import type { Job } from '../../jobs/runner.js';
import { FencedOut, type Lease } from '../../cluster/fence.js';
import { mapPool } from '../../util/pool.js';
import { payloadOf, type LogEvent, type WebhookEventSource } from './event-source.js';
import { leaseEndpoint, leaseFree, pruneDeliveries, recordAttempt, releaseEndpoint, settleReplay, takeReplay } from './lifecycle.js';
import { failingTooLong, retryDelayMs, type RetryPolicy } from './retry-policy.js';
import type { WebhookSender } from './sender.js';
import { webhookHeaders } from './signing.js';
import type { DeliveryRow, EndpointRow } from './tables.js';

export interface DispatcherOptions {
  db: Db;
  source: WebhookEventSource;
  sender: WebhookSender;
  clock: Clock;
  policy: RetryPolicy;
  disableAfterMs: number;
  /** Events read per query, and the most one endpoint gets in one run (fairness). */
  batch?: number;
  perRun?: number;
  concurrency?: number;
  /** How long one attempt may hold an endpoint: the sender's timeout and a margin for the store. */
  leaseMs: number;
  /** Where one endpoint's failure to read the log is told (it must not stop the others). */
  onError?: (endpointId: string, e: unknown) => void;
}

/** How long the delivery log keeps a row; the log is pruned at most once an hour. */
export const DELIVERY_LOG_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

let made = 0;
/** Sorts by time, then by order made within this process (the log pages on (attempted_at, id)); random after that. */
export const deliveryId = (nowMs: number) =>
  `wd_${nowMs.toString(16).padStart(12, '0')}${(made++ % 0x10000).toString(16).padStart(4, '0')}${crypto.randomBytes(6).toString('hex')}`;

/** The secrets that sign now: the current one, and the previous one inside its grace period. */
export function liveSecrets(ep: Pick<EndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, nowMs: number): string[] {
  const prev = ep.previous_secret && (ep.previous_secret_expires_at ?? 0) > nowMs ? [ep.previous_secret] : [];
  return [ep.secret, ...prev];
}

const fenceOf = (lease: Lease | undefined) => lease && ((tx: Tx) => lease.check(tx));

export class WebhookDispatcher {
  private readonly batch: number;
  private readonly perRun: number;
  private readonly concurrency: number;
  /** This dispatcher's name on the leases it takes. */
  private readonly holder = `wdp_${crypto.randomBytes(8).toString('hex')}`;
  private prunedAt = -Infinity;

  constructor(private readonly o: DispatcherOptions) {
    this.batch = o.batch ?? 50;
    this.perRun = o.perRun ?? 200;
    this.concurrency = o.concurrency ?? 8;
  }

  /**
   * One pass: queued replays, then every endpoint whose next attempt is due; the log's retention
   * now and then. `lease` is the webhook role's leadership (absent: a run outside the cluster, epoch 0).
   */
  async run(lease?: Lease): Promise<void> {
    const now = this.o.clock.now();
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now;
      await pruneDeliveries(this.o.db, now - DELIVERY_LOG_RETENTION_MS);
    }
    await this.sendReplays();
    const due = await this.o.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('state', '=', 'active')
      .where('next_attempt_at', '<=', this.o.clock.now())
      .where(leaseFree(this.holder, lease?.epoch ?? 0, this.o.clock.now()))
      .orderBy('next_attempt_at')
      .limit(1000)
      .execute();
    let fenced: FencedOut | undefined;
    await mapPool(due, this.concurrency, (ep) =>
      this.advance(ep, lease).catch((e: unknown) => {
        if (e instanceof FencedOut) fenced = e;
        else this.o.onError?.(ep.id, e);
      }),
    );
    // A newer leader has the role: the run fails so the job gives it up (src/jobs.ts).
    if (fenced) throw fenced;
  }

  job(name: string, intervalMs: number): Job {
    return { name, intervalMs, run: (lease) => this.run(lease) };
  }

  private async advance(start: EndpointRow, lease: Lease | undefined): Promise<void> {
    try {
      await this.advanceLeased(start, lease);
    } finally {
      await releaseEndpoint(this.o.db, start.id, this.holder);
    }
  }

  private async advanceLeased(start: EndpointRow, lease: Lease | undefined): Promise<void> {
    let ep: EndpointRow | null = start;
    let sent = 0;
    while (ep && sent < this.perRun) {
      const events = await this.o.source.ownerEventsAfter(ep.address, ep.last_seq, Math.min(this.batch, this.perRun - sent));
      for (const ev of events) {
        const now = this.o.clock.now();
        if (!(await leaseEndpoint(this.o.db, ep.id, this.holder, lease?.epoch ?? 0, now, now + this.o.leaseMs, fenceOf(lease)))) return;
        const before: EndpointRow = ep;
        ep = await this.attempt(before, ev, lease);
        sent++;
        // Stop at a failure (the event stays at the head) or a lost race (another writer moved it).
        if (!ep || ep.last_seq !== ev.seq) return;
      }
      if (events.length < this.batch) return;
    }
  }

  private async attempt(ep: EndpointRow, ev: LogEvent, lease: Lease | undefined): Promise<EndpointRow | null> {
    const body = payloadOf(ep.address, ev);
    const now = this.o.clock.now();
    const headers = webhookHeaders(liveSecrets(ep, now), ev.event_id, Math.floor(now / 1000), body);
    const result = await this.o.sender.send(ep.url, body, headers, now);
    const done = this.o.clock.now();
    const failures = ep.attempts + 1;
    const delivery: DeliveryRow = {
      id: deliveryId(now),
      endpoint_id: ep.id,
      event_id: ev.event_id,
      seq: ev.seq,
      kind: ev.kind,
      payload: body,
      attempt: failures,
      outcome: result.outcome,
      response_status: result.status,
      duration_ms: result.durationMs,
      error: result.error,
      replay_of: null,
      attempted_at: now,
    };
    const disable = result.outcome === 'gone' ? 'gone' : failingTooLong(ep.failing_since, done, this.o.disableAfterMs) ? 'failing' : null;
    return recordAttempt(this.o.db, ep, {
      delivery,
      result,
      now: done,
      retryAt: done + retryDelayMs(this.o.policy, failures, result.retryAfterMs),
      disable: result.outcome === 'succeeded' ? null : disable,
      fence: fenceOf(lease),
    });
  }

  private async sendReplays(): Promise<void> {
    const queued = await this.o.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.event_id', 'd.payload', 'e.url', 'e.secret', 'e.previous_secret', 'e.previous_secret_expires_at'])
      .where((eb) => eb.or([eb('d.outcome', '=', 'queued'), eb.and([eb('d.outcome', '=', 'sending'), eb('d.attempted_at', '<', this.o.clock.now() - this.o.leaseMs)])]))
      .where('e.state', '=', 'active')
      .orderBy('d.attempted_at')
      .limit(100)
      .execute();
    await mapPool(queued, this.concurrency, async (q) => {
      const now = this.o.clock.now();
      if (!(await takeReplay(this.o.db, q.id, now, now - this.o.leaseMs))) return;
      const result = await this.o.sender.send(q.url, q.payload, webhookHeaders(liveSecrets(q, now), q.event_id, Math.floor(now / 1000), q.payload), now);
      await settleReplay(this.o.db, q.id, result, now);
    });
  }
}
