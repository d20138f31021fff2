/**
 * Webhooks, both sides:
 * - `Webhooks`: the owner's endpoints (register, list, rotate the secret, the delivery log,
 *   replay, delete) over the session's address;
 * - `verifyWebhook`: what a receiver runs on each request, the Standard Webhooks check (HMAC-SHA256
 *   keyed with the secret's bytes over `{webhook-id}.{webhook-timestamp}.{raw body}`, any of the
 *   space-separated `v1,` signatures, a timestamp near the receiver's clock) with WebCrypto, so it
 *   runs in browsers, on edge runtimes and in Node alike. The comparison is WebCrypto's own
 *   `verify`, which does not leak where the bytes differ.
 */
import { base64 } from '@scure/base';
import { MarketError } from './errors.js';
import { items } from './paging.js';
import type { Transport } from './transport.js';

export class Webhooks {
  constructor(
    private readonly http: Transport,
    private readonly address: () => string,
  ) {}

  /** Registers `url`; the reply carries the endpoint's `secret`, shown only here and on rotation. */
  async register(url: string) {
    return (await this.http.call('POST /v1/address/{address}/webhooks', { params: { address: this.address() }, body: { url } })).result;
  }

  /** The address's endpoints, newest first (secrets never shown). */
  async list() {
    return (await this.http.call('GET /v1/address/{address}/webhooks', { params: { address: this.address() } })).result;
  }

  /** A new secret; the previous one keeps signing beside it through the grace period. */
  async rotateSecret(id: string) {
    return (await this.http.call('POST /v1/address/{address}/webhooks/{id}/secret', { params: { address: this.address(), id } })).result;
  }

  /** The endpoint's delivery log, newest first, every page. */
  deliveries(id: string, limit?: number) {
    const address = this.address();
    return items((cursor) => this.http.call('GET /v1/address/{address}/webhooks/{id}/deliveries', { params: { address, id }, query: { ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) } }).then((r) => r.body));
  }

  /** Queues one more attempt of a logged delivery (202, `outcome: queued`). */
  async replay(id: string, deliveryId: string) {
    return (await this.http.call('POST /v1/address/{address}/webhooks/{id}/deliveries/{delivery_id}/replay', { params: { address: this.address(), id, delivery_id: deliveryId } })).result;
  }

  async remove(id: string) {
    return (await this.http.call('DELETE /v1/address/{address}/webhooks/{id}', { params: { address: this.address(), id } })).result;
  }
}

export interface WebhookPayload {
  type: string;
  timestamp: string;
  seq: number;
  address: string;
  data: { event_id: string; kind: string; at: number; [k: string]: unknown };
}

export interface VerifyWebhookOptions {
  /** How far the attempt's timestamp may be from now, seconds (default 300, as the reference libraries). */
  toleranceSeconds?: number;
  /** Now, unix seconds (default the clock). */
  now?: number;
}

const header = (headers: Headers | Record<string, string | string[] | undefined>, name: string): string | undefined => {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const h = headers as Record<string, string | string[] | undefined>;
  const v = h[name] ?? Object.entries(h).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
};

const refused = (why: string) => new MarketError('webhook_signature_invalid', `webhook refused: ${why}`, null);

/**
 * Checks one webhook request against `secret` (`whsec_…`; during a rotation, pass either) and
 * returns the parsed payload. `body` must be the raw bytes or text as received, before any
 * parsing. Throws MarketError `webhook_signature_invalid` on a missing header, a stale or future
 * timestamp, or no matching signature.
 */
export async function verifyWebhook(secret: string, headers: Headers | Record<string, string | string[] | undefined>, body: string | Uint8Array, o: VerifyWebhookOptions = {}): Promise<WebhookPayload> {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sigs = header(headers, 'webhook-signature');
  if (!id || !ts || !sigs) throw refused('a webhook-id, webhook-timestamp or webhook-signature header is missing');
  if (!/^\d+$/.test(ts)) throw refused('webhook-timestamp is not unix seconds');
  const now = o.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(ts)) > (o.toleranceSeconds ?? 300)) throw refused(`webhook-timestamp ${ts} is too far from now (${now})`);
  let keyBytes: Uint8Array;
  try {
    keyBytes = base64.decode(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new MarketError('invalid_request', 'the webhook secret is not whsec_<base64>', null);
  }
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const raw = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const prefix = new TextEncoder().encode(`${id}.${ts}.`);
  const signed = new Uint8Array(prefix.length + raw.length);
  signed.set(prefix);
  signed.set(raw, prefix.length);
  for (const s of sigs.split(' ')) {
    const [version, mac] = s.split(',');
    if (version !== 'v1' || !mac) continue;
    let bytes: Uint8Array;
    try {
      bytes = base64.decode(mac);
    } catch {
      continue;
    }
    if (await crypto.subtle.verify('HMAC', key, bytes, signed)) return JSON.parse(new TextDecoder().decode(raw)) as WebhookPayload;
  }
  throw refused('no v1 signature matches the secret');
}
