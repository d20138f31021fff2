import { Type, type Static } from '@sinclair/typebox';
import { Nullable, UnixSeconds } from '../../http/validators.js';
import { MAX_URL_LENGTH } from './url-rules.js';

export const WebhookUrlBody = Type.Object(
  {
    url: Type.String({
      minLength: 8,
      maxLength: MAX_URL_LENGTH,
      description: 'Where to POST your events: https, no credentials, a host whose every address is public (http and loopback are accepted on the devnet only)',
      examples: ['https://hooks.example.com/counterparty-market'],
    }),
  },
  { additionalProperties: false },
);

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ description: 'Endpoint id (wh_…)' }),
    url: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
    disabled_reason: Nullable(Type.Union([Type.Literal('gone'), Type.Literal('failing')], { description: '`gone`: the receiver answered 410; `failing`: no success for WEBHOOK_DISABLE_AFTER_HOURS (72 by default)' })),
    disabled_at: Nullable(UnixSeconds),
    last_delivered_seq: Type.Integer({ minimum: 0, description: 'Position in the ordered event log: every one of your events up to it was delivered (2xx), in order' }),
    retry: Nullable(
      Type.Object(
        {
          attempts: Type.Integer({ minimum: 1, description: 'Failed attempts at the event after `last_delivered_seq`' }),
          next_attempt_at: UnixSeconds,
          failing_since: UnixSeconds,
        },
        { additionalProperties: false, description: 'Present while the event at the head of the queue is failing' },
      ),
    ),
    previous_secret_expires_at: Nullable({ ...UnixSeconds, description: 'After a rotation: until when the previous secret still signs beside the new one' }),
    created_at: UnixSeconds,
  },
  { title: 'WebhookEndpoint', additionalProperties: false },
);

export const WebhookEndpointWithSecret = Type.Composite(
  [WebhookEndpoint, Type.Object({ secret: Type.String({ pattern: '^whsec_[A-Za-z0-9+/=]+$', description: 'The signing secret (`whsec_` + base64 of 32 bytes). Shown only here: keep it.' }) })],
  { title: 'WebhookEndpointWithSecret', additionalProperties: false },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'Delivery id (wd_…): one attempt' }),
    event_id: Type.String({ description: 'The event, sent as `webhook-id`' }),
    seq: Type.Integer({ minimum: 1, description: "The event's position in the ordered log" }),
    kind: Type.String(),
    attempt: Type.Integer({ minimum: 0, description: 'Attempt number at this event (1 = first); 0 for a replay' }),
    outcome: Type.Union(['succeeded', 'failed', 'timeout', 'network_error', 'refused_address', 'gone', 'queued', 'sending'].map((o) => Type.Literal(o)), {
      description: '`succeeded` (2xx), `failed` (another status; 3xx included: redirects are never followed), `timeout`, `network_error`, `refused_address` (the host resolved to a non-public address at delivery), `gone` (410), `queued` and `sending` (a replay not yet answered)',
    }),
    response_status: Nullable(Type.Integer()),
    duration_ms: Nullable(Type.Integer({ minimum: 0 })),
    error: Nullable(Type.String()),
    replay_of: Nullable(Type.String({ description: 'For a replay: the delivery it repeats' })),
    attempted_at: UnixSeconds,
  },
  { title: 'WebhookDelivery', additionalProperties: false },
);

export type WebhookEndpointWire = Static<typeof WebhookEndpoint>;
export type WebhookDeliveryWire = Static<typeof WebhookDelivery>;
