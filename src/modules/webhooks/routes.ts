import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, Ok, Page, errorResponses } from '../../http/envelope.js';
import { invalid } from '../../http/errors.js';
import { sessionSecurity as security } from '../../http/security.js';
import { Address, Cursor, Id, Limit } from '../../http/validators.js';
import { isKeysetPosition } from '../../store/keyset.js';
import { requireOwner } from '../auth/index.js';
import type { WebhookEventSource } from './event-source.js';
import { WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret, WebhookUrlBody } from './schemas.js';
import { deliveryView, endpointView, MAX_ENDPOINTS_PER_ADDRESS, WebhooksService } from './service.js';
import { DEFAULT_SCHEDULE_MS } from './retry-policy.js';

const tags = ['webhooks'];
const BASE = '/v1/address/:address/webhooks';
const config = { limit: 'account_maintenance', cache: 'no-store' } as const;

const human = (ms: number) => (ms >= 3600_000 ? `${ms / 3600_000} h` : ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`);

export const WEBHOOKS_DESCRIPTION = `Signed push delivery of your own events (the owner feed's, GET /v1/address/{address}/events) to URLs you register, as [Standard Webhooks](https://www.standardwebhooks.com/).

**Request.** One \`POST\` per event, \`content-type: application/json\`, body \`{type, timestamp, seq, address, data}\`: \`type\` is the event's \`kind\`, \`timestamp\` when the market observed it (ISO 8601), \`seq\` its position in the ordered event log, \`data\` the event as the owner feed shows it (with \`event_id\`, \`kind\`, \`at\`). A reorg that undoes a confirmation arrives as an event of its own, \`event_retracted\`, whose \`data.retracts\` names the withdrawn \`event_id\`. Headers:
- \`webhook-id\`: the event's \`event_id\`. The same on every attempt and replay of one delivery (with the same \`seq\`): dedupe on the pair (\`webhook-id\`, body \`seq\`), never on \`webhook-id\` alone. The log carries an event again under the same \`event_id\` with a higher \`seq\` when its subject changed (a listing's \`listing_filled\` once it sold, its current \`status\`) or it confirmed again after an \`event_retracted\` naming it, and every such entry is delivered: take a higher \`seq\` as news, e.g. keep the highest \`seq\` seen per \`webhook-id\` and drop only one at or below it.
- \`webhook-timestamp\`: the attempt's time, unix seconds (new on every attempt). Refuse one far from your clock (the reference libraries allow 5 minutes).
- \`webhook-signature\`: \`v1,<base64>\` where the base64 is HMAC-SHA256 keyed with your secret's bytes (the base64 after \`whsec_\`, decoded) over \`{webhook-id}.{webhook-timestamp}.{raw body}\`. Several signatures may be sent, space separated (after a rotation): accept the request if any \`v1\` one matches, compared in constant time. Verify the raw body bytes, before parsing. Any Standard Webhooks library verifies it (e.g. npm \`standardwebhooks\`: \`new Webhook(secret).verify(body, headers)\`).

**Order and retries.** Events are delivered at least once and in log order per endpoint: an event is sent only after every earlier one was answered 2xx. Answer 2xx quickly (within 15 s) and work afterwards. Anything else is a failure and the same event is retried, after ${DEFAULT_SCHEDULE_MS.map(human).join(', ')}, then every 24 h, each moved by up to ±20 % of jitter; a 429 or 503 with \`Retry-After\` waits at least that long. Redirects are never followed (a 3xx is a failure: register the final URL). At most 64 KiB of your answer is read. A \`410 Gone\` disables the endpoint at once (\`disabled_reason: gone\`); an endpoint with no success for 72 hours (WEBHOOK_DISABLE_AFTER_HOURS) is disabled (\`failing\`). A disabled endpoint gets nothing more: delete it and register again (the new one starts at the events after its registration).

**URLs.** https only, without credentials, and every address the host resolves to must be public: loopback, private (RFC 1918), link-local, unique-local, carrier-grade NAT, unspecified, multicast and reserved addresses are refused with 400 invalid_request, \`field: body.url\` and \`reason\` (\`scheme\`, \`credentials\`, \`forbidden_address\` with the \`address\`, \`unresolvable\`, \`invalid_url\`). The registration waits at most WEBHOOK_DNS_TIMEOUT_MS (default 1 s) for the host to resolve: a resolver that does not answer in time never holds the request, and the URL is taken and judged at delivery. The host is resolved again on every connection: a name that later resolves to a private address is not reached (the attempt is logged \`refused_address\` and retried). On the devnet, http and loopback are accepted so a receiver can run on 127.0.0.1.

**Budget.** Session, owner only (401 without a session, 403 for another address; another's endpoint id answers 404); the account-maintenance budget. At most ${MAX_ENDPOINTS_PER_ADDRESS} endpoints per address (409 state_changed, \`reason: endpoint_limit\`).`;

const Params = Type.Object({ address: Address }, { additionalProperties: false });
const IdParams = Type.Object({ address: Address, id: Id }, { additionalProperties: false });

export function webhookRoutes(source: WebhookEventSource) {
  return (app: App, ctx: Context): void => {
    const service = new WebhooksService(ctx, source);

    app.post(
      BASE,
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Register a webhook endpoint',
          description: `${WEBHOOKS_DESCRIPTION}\n\nAnswers 201 with the endpoint and its \`secret\` (shown only here and on rotation).`,
          params: Params,
          body: WebhookUrlBody,
          response: { 201: Ok(WebhookEndpointWithSecret), 400: { ...ErrorEnvelope, description: 'invalid_request: the URL is refused (`reason`)' }, ...errorResponses },
        },
      },
      async (req, reply) => {
        const me = requireOwner(req, req.params.address);
        const ep = await service.register(me, req.body.url);
        return reply.code(201).send({ result: { ...endpointView(ep, service.now()), secret: ep.secret } });
      },
    );

    app.get(
      BASE,
      {
        config,
        schema: {
          tags,
          security,
          summary: "The address's webhook endpoints",
          description: 'Newest first, at most 10; secrets are never shown here. `retry` says when a failing event is tried next.',
          params: Params,
          response: { 200: Ok(Type.Array(WebhookEndpoint)), ...errorResponses },
        },
      },
      async (req) => {
        const me = requireOwner(req, req.params.address);
        const now = service.now();
        return { result: (await service.list(me)).map((ep) => endpointView(ep, now)) };
      },
    );

    app.delete(
      `${BASE}/:id`,
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Delete a webhook endpoint',
          description: 'Stops deliveries and removes the endpoint with its delivery log. An attempt already in flight may still arrive.',
          params: IdParams,
          response: { 200: Ok(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { additionalProperties: false })), ...errorResponses },
        },
      },
      async (req) => {
        await service.remove(requireOwner(req, req.params.address), req.params.id);
        return { result: { id: req.params.id, deleted: true as const } };
      },
    );

    app.post(
      `${BASE}/:id/secret`,
      {
        config,
        schema: {
          tags,
          security,
          summary: "Rotate an endpoint's signing secret",
          description:
            'A new `whsec_` secret signs every attempt from now on. The previous one keeps signing beside it for 24 hours (`previous_secret_expires_at`): `webhook-signature` then carries two `v1` signatures, the new one first, so a receiver verifies with either while it switches. Rotating again within the grace period drops the oldest secret. Answers the endpoint with its new `secret` (shown only here).',
          params: IdParams,
          response: { 200: Ok(WebhookEndpointWithSecret), ...errorResponses },
        },
      },
      async (req) => {
        const ep = await service.rotate(requireOwner(req, req.params.address), req.params.id);
        return { result: { ...endpointView(ep, service.now()), secret: ep.secret } };
      },
    );

    app.get(
      `${BASE}/:id/deliveries`,
      {
        config,
        schema: {
          tags,
          security,
          summary: "An endpoint's delivery log",
          description:
            'One row per attempt (and per replay), newest first, kept 30 days: the event (`event_id` = `webhook-id`, `seq`, `kind`), the attempt number, the outcome, the HTTP status, the time it took and the error. `limit` 1 to 100 (default 50); pass `next_cursor` back as `cursor` for older rows.',
          params: IdParams,
          querystring: Type.Object({ limit: Limit(50), cursor: Type.Optional(Cursor) }, { additionalProperties: false }),
          response: { 200: Page(WebhookDelivery), ...errorResponses },
        },
      },
      async (req) => {
        const me = requireOwner(req, req.params.address);
        const route = 'webhook-deliveries';
        const filters = { me, id: req.params.id };
        const after = ctx.cursors.decode<unknown>(req.query.cursor, route, filters);
        if (after !== undefined && !isKeysetPosition(after)) throw invalid('cursor is not valid for this route and these filters', { field: 'query.cursor' });
        const { rows, next } = await service.deliveries(me, req.params.id, req.query.limit, after);
        return { result: rows.map(deliveryView), result_count: rows.length, next_cursor: next ? ctx.cursors.encode(route, filters, next) : null };
      },
    );

    app.post(
      `${BASE}/:id/deliveries/:delivery_id/replay`,
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Send a delivery again',
          description:
            'Queues the logged event for one more attempt, outside the ordered queue: the same body and `webhook-id`, a fresh `webhook-timestamp` and signature. Answers 202 with the queued row (`outcome: queued`, `replay_of`); the dispatcher sends it on its next run and the row records the outcome (a replay is not retried). 409 state_changed on a disabled endpoint or a replay still queued.',
          params: Type.Object({ address: Address, id: Id, delivery_id: Id }, { additionalProperties: false }),
          response: { 202: Ok(WebhookDelivery), ...errorResponses },
        },
      },
      async (req, reply) => {
        const row = await service.replay(requireOwner(req, req.params.address), req.params.id, req.params.delivery_id);
        return reply.code(202).send({ result: deliveryView(row) });
      },
    );
  };
}
