/** Endpoint management for the routes: register (URL rules), list, rotate, delete, read the log, replay. */
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Context } from '../../context.js';
import { ApiError, invalid, notFound } from '../../http/errors.js';
import { before, type KeysetPosition } from '../../store/keyset.js';
import type { WebhookEventSource } from './event-source.js';
import { createEndpoint, deleteEndpoint, queueReplay, rotateSecret } from './lifecycle.js';
import { deliveryId } from './dispatcher.js';
import { newSecret } from './signing.js';
import { checkWebhookUrl, UrlRefused, type UrlRules } from './url-rules.js';
import type { DeliveryRow, EndpointRow } from './tables.js';
import type { WebhookDeliveryWire, WebhookEndpointWire } from './schemas.js';

export const MAX_ENDPOINTS_PER_ADDRESS = 10;
/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_GRACE_MS = 24 * 3600_000;

const sec = (ms: number) => Math.floor(ms / 1000);

/** Loopback and plain http on a regtest market only (the devnet, or Bitcoin Core on regtest as the multi-instance test runs it): worthless coins, a local receiver. */
export const urlRulesOf = (ctx: Pick<Context, 'config'>): UrlRules => ({ allowHttp: ctx.config.NETWORK === 'regtest', allowLoopback: ctx.config.NETWORK === 'regtest' });

export function endpointView(ep: EndpointRow, nowMs: number): WebhookEndpointWire {
  const failing = ep.state === 'active' && ep.attempts > 0;
  return {
    id: ep.id,
    url: ep.url,
    status: ep.state,
    disabled_reason: ep.disabled_reason,
    disabled_at: ep.disabled_at === null ? null : sec(ep.disabled_at),
    last_delivered_seq: Number(ep.last_seq),
    retry: failing ? { attempts: ep.attempts, next_attempt_at: sec(ep.next_attempt_at), failing_since: sec(ep.failing_since ?? ep.updated_at) } : null,
    previous_secret_expires_at: ep.previous_secret && (ep.previous_secret_expires_at ?? 0) > nowMs ? sec(ep.previous_secret_expires_at!) : null,
    created_at: sec(ep.created_at),
  };
}

export const deliveryView = (d: DeliveryRow): WebhookDeliveryWire => ({
  id: d.id,
  event_id: d.event_id,
  seq: Number(d.seq),
  kind: d.kind,
  attempt: d.attempt,
  outcome: d.outcome,
  response_status: d.response_status,
  duration_ms: d.duration_ms,
  error: d.error,
  replay_of: d.replay_of,
  attempted_at: sec(Number(d.attempted_at)),
});

export class WebhooksService {
  constructor(
    private readonly ctx: Context,
    private readonly source: WebhookEventSource,
  ) {}

  private get db() {
    return this.ctx.store.db;
  }

  /** The address's endpoint `id`; another's and a missing one are the same 404. */
  async owned(address: string, id: string): Promise<EndpointRow> {
    const ep = await this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where('address', '=', address).executeTakeFirst();
    if (!ep) throw notFound('webhook endpoint');
    return ep;
  }

  async register(address: string, rawUrl: string): Promise<EndpointRow> {
    let url: URL;
    try {
      url = await checkWebhookUrl(rawUrl, urlRulesOf(this.ctx), this.ctx.config.WEBHOOK_DNS_TIMEOUT_MS);
    } catch (e) {
      if (e instanceof UrlRefused) throw invalid(`url refused: ${e.message}`, { field: 'body.url', reason: e.reason, ...(e.address ? { address: e.address } : {}) });
      throw e;
    }
    // The count and the insert as one section per address (across instances), so racing registrations cannot pass the limit together.
    return this.ctx.store.locks.run(`webhooks:${address}`, async () => {
      const count = await this.db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('address', '=', address).executeTakeFirstOrThrow();
      if (Number(count.n) >= MAX_ENDPOINTS_PER_ADDRESS) {
        throw new ApiError('state_changed', `an address may have at most ${MAX_ENDPOINTS_PER_ADDRESS} webhook endpoints; delete one first`, { reason: 'endpoint_limit' });
      }
      return this.insert(address, url);
    });
  }

  private async insert(address: string, url: URL): Promise<EndpointRow> {
    const now = this.ctx.clock.now();
    const row: EndpointRow = {
      id: `wh_${crypto.randomBytes(12).toString('hex')}`,
      address,
      url: url.href,
      state: 'active',
      disabled_reason: null,
      disabled_at: null,
      secret: newSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      // A new endpoint receives the events that happen after it exists.
      last_seq: await this.source.head(),
      attempts: 0,
      next_attempt_at: now,
      failing_since: null,
      lease_holder: null,
      lease_until: 0,
      lease_epoch: 0,
      created_at: now,
      updated_at: now,
    };
    await createEndpoint(this.db, row);
    return row;
  }

  list(address: string): Promise<EndpointRow[]> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('address', '=', address).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  }

  async rotate(address: string, id: string): Promise<EndpointRow> {
    const ep = await this.owned(address, id);
    const now = this.ctx.clock.now();
    const secret = newSecret();
    if (!(await rotateSecret(this.db, ep, secret, now + ROTATION_GRACE_MS, now))) throw new ApiError('state_changed', 'the secret changed meanwhile; read the endpoint again');
    return { ...ep, secret, previous_secret: ep.secret, previous_secret_expires_at: now + ROTATION_GRACE_MS, updated_at: now };
  }

  async remove(address: string, id: string): Promise<void> {
    const ep = await this.owned(address, id);
    if (!(await deleteEndpoint(this.db, ep.id))) throw notFound('webhook endpoint');
  }

  async deliveries(address: string, id: string, limit: number, after: KeysetPosition | undefined): Promise<{ rows: DeliveryRow[]; next: KeysetPosition | null }> {
    const ep = await this.owned(address, id);
    let q = this.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', ep.id);
    if (after) q = q.where(before(sql.ref('attempted_at'), sql.ref('id'), after));
    const rows = await q.orderBy('attempted_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { rows: page, next: rows.length > limit && last ? [Number(last.attempted_at), last.id] : null };
  }

  async replay(address: string, id: string, deliveryIdToReplay: string): Promise<DeliveryRow> {
    const ep = await this.owned(address, id);
    const d = await this.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryIdToReplay).where('endpoint_id', '=', ep.id).executeTakeFirst();
    if (!d) throw notFound('delivery');
    if (ep.state !== 'active') throw new ApiError('state_changed', `the endpoint is disabled (${ep.disabled_reason ?? 'unknown'}); register it again to receive events`);
    if (d.outcome === 'queued' || d.outcome === 'sending') throw new ApiError('state_changed', 'this replay is not sent yet');
    const now = this.ctx.clock.now();
    const row: DeliveryRow = { ...d, id: deliveryId(now), attempt: 0, outcome: 'queued', response_status: null, duration_ms: null, error: null, replay_of: d.id, attempted_at: now };
    await queueReplay(this.db, row);
    return row;
  }

  now(): number {
    return this.ctx.clock.now();
  }
}
