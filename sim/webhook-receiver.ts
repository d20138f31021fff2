/**
 * The traders' webhook receivers: one HTTP server on 127.0.0.1 (the devnet's URL rules allow
 * loopback) where each trader that registered an endpoint gets its own path. It does what a
 * receiver an integrator writes does: verifies each request with the client's `verifyWebhook`
 * (any of the endpoint's secrets: during a rotation both sign), dedupes on (webhook-id, seq), and
 * keeps what arrived in arrival order for the `webhook_mirror` invariant. It also misbehaves as
 * real receivers do: a first attempt is sometimes answered 500 or 503 (with Retry-After), so the
 * market's retries and its ordering behind a failing event are exercised under every other fault.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type WebhookPayload } from '../client/src/index.js';
import type { Rng } from './rng.js';
import type { Violation } from './history.js';

/** One trader's endpoint as the trader knows it. */
export interface TraderWebhook {
  id: string;
  /** Newest first: a rotation puts the new secret in front; the old one still verifies. */
  secrets: string[];
  /** The log position the endpoint started after (its `last_delivered_seq` at registration). */
  startSeq: number;
  /** Each (webhook-id, seq) the first time it was accepted, in arrival order. */
  got: Array<{ id: string; seq: number; payload: WebhookPayload }>;
  /** Requests answered (any status), and those refused on purpose. */
  requests: number;
  refusedOnPurpose: number;
  /** Requests accepted per `webhook-id:seq`, first arrivals and repeats (a replay is a repeat). */
  arrivals: Map<string, number>;
  /** Replays the market queued (202), with the arrivals of their event when asked: each must arrive once more. */
  replays: Array<{ id: string; seq: number; before: number }>;
}

export class WebhookReceiver {
  private server: http.Server | undefined;
  private port = 0;
  private readonly endpoints = new Map<string, TraderWebhook>();
  private readonly seen = new Set<string>();
  private readonly tried = new Set<string>();
  private readonly pending = new Set<string>();

  constructor(
    private readonly rng: Rng,
    private readonly violate: (v: Violation) => void,
  ) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /**
   * A fresh URL for one registration attempt. Only an attempt whose answer came back is added;
   * an endpoint made by an attempt whose answer was lost (its secret never seen) is answered 410
   * Gone, which disables it, as a receiver that does not know an endpoint should.
   */
  url(name: string): { url: string; key: string } {
    const key = `${name}-${this.rng.int(0, 2 ** 30).toString(36)}`;
    return { url: `http://127.0.0.1:${this.port}/hook/${key}`, key };
  }

  /** Starts receiving at `key` (a request that came before this answered 410 only if the key is unknown for good). */
  add(key: string, hook: TraderWebhook): void {
    this.endpoints.set(key, hook);
  }

  /** Whether `key` is still awaited (registered but its answer not yet read): answered 503 meanwhile. */
  expect(key: string): void {
    this.pending.add(key);
  }

  forget(key: string): void {
    this.pending.delete(key);
  }

  /** What arrived, for the run's summary: endpoints, distinct events accepted, first attempts refused on purpose. */
  stats(): { endpoints: number; events: number; refused_on_purpose: number; requests: number } {
    const hooks = [...this.endpoints.values()];
    return { endpoints: hooks.length, events: hooks.reduce((n, h) => n + h.got.length, 0), refused_on_purpose: hooks.reduce((n, h) => n + h.refusedOnPurpose, 0), requests: hooks.reduce((n, h) => n + h.requests, 0) };
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const name = /^\/hook\/([a-z0-9-]+)$/.exec(req.url ?? '')?.[1];
    const hook = name ? this.endpoints.get(name) : undefined;
    if (!hook) return void res.writeHead(name && this.pending.has(name) ? 503 : 410).end();
    hook.requests++;
    let payload: WebhookPayload | undefined;
    for (const secret of hook.secrets) {
      payload = await verifyWebhook(secret, req.headers, body).catch(() => undefined);
      if (payload) break;
    }
    if (!payload) {
      this.violate({ name: 'webhook_mirror', message: `${name}'s receiver got a request no secret of its endpoint verifies (webhook-id ${String(req.headers['webhook-id'])})` });
      return void res.writeHead(400).end();
    }
    const id = String(req.headers['webhook-id']);
    const key = `${name}:${id}:${payload.seq}`;
    // A first attempt is sometimes refused, as a receiver restarting or overloaded does; the
    // market must send the same event again (5 s later by its schedule) and nothing behind it first.
    if (!this.tried.has(key) && !this.seen.has(key) && this.rng.chance(0.08)) {
      this.tried.add(key);
      hook.refusedOnPurpose++;
      return void (this.rng.chance(0.5) ? res.writeHead(503, { 'retry-after': '1' }) : res.writeHead(500)).end();
    }
    this.tried.add(key);
    hook.arrivals.set(`${id}:${payload.seq}`, (hook.arrivals.get(`${id}:${payload.seq}`) ?? 0) + 1);
    if (!this.seen.has(key)) {
      this.seen.add(key);
      hook.got.push({ id, seq: payload.seq, payload });
    }
    res.writeHead(204).end();
  }
}
