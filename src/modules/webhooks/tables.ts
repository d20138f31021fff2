/**
 * Webhooks: endpoints an owner registers for its own events, and one delivery-log row per attempt.
 *
 * `webhook_endpoints.state` (one owner: lifecycle.ts): active → disabled (`disabled_reason`
 * `gone`: the receiver answered 410; `failing`: no success for WEBHOOK_DISABLE_AFTER_HOURS).
 * Deleting removes the endpoint and its log. `last_seq` is the endpoint's cursor in the ordered
 * event log: every owner event of `address` up to it was delivered (2xx), in order.
 * `attempts` counts failed attempts at the event after it, `next_attempt_at` (ms) is when the
 * dispatcher may try again, `failing_since` (ms) when the current run of failures began.
 * `lease_holder`/`lease_until` (ms): the dispatcher sending to the endpoint now, so two
 * dispatchers (two instances, a timed run and a kick) never send to one endpoint at once;
 * `lease_epoch` the leader epoch of the webhook role it held it under (src/cluster/), so a new
 * leader takes over a dead leader's lease at once instead of waiting for it to run out.
 * Secrets are kept readable because HMAC needs them; they are shown only when made.
 */
export type EndpointState = 'active' | 'disabled';
export type DisabledReason = 'gone' | 'failing';

/**
 * An attempt's outcome (also the label of market_webhook_deliveries_total): `succeeded` (2xx),
 * `failed` (another status), `timeout`, `network_error` (refused, reset, TLS, DNS),
 * `refused_address` (the host resolved to a forbidden address at delivery), `gone` (410); and
 * for a replay, `queued` until a dispatcher takes it (`sending`) and records its outcome.
 */
export type DeliveryOutcome = 'succeeded' | 'failed' | 'timeout' | 'network_error' | 'refused_address' | 'gone' | 'queued' | 'sending';

export interface WebhookTables {
  webhook_endpoints: {
    id: string;
    address: string;
    url: string;
    state: EndpointState;
    disabled_reason: DisabledReason | null;
    disabled_at: number | null;
    secret: string;
    previous_secret: string | null;
    previous_secret_expires_at: number | null;
    last_seq: number;
    attempts: number;
    next_attempt_at: number;
    failing_since: number | null;
    lease_holder: string | null;
    lease_until: number;
    lease_epoch: number;
    created_at: number;
    updated_at: number;
  };
  webhook_deliveries: {
    id: string;
    endpoint_id: string;
    event_id: string;
    seq: number;
    kind: string;
    /** The exact body sent (a replay sends it again, byte for byte). */
    payload: string;
    attempt: number;
    outcome: DeliveryOutcome;
    response_status: number | null;
    duration_ms: number | null;
    error: string | null;
    replay_of: string | null;
    /** ms */
    attempted_at: number;
  };
  /** Attempts by outcome since the start (market_webhook_deliveries_total); pruning the log leaves them. */
  webhook_delivery_counts: {
    outcome: DeliveryOutcome;
    n: number;
  };
}

export type EndpointRow = WebhookTables['webhook_endpoints'];
export type DeliveryRow = WebhookTables['webhook_deliveries'];

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends WebhookTables {}
}
