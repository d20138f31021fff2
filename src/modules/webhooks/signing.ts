/**
 * Standard Webhooks signatures (symmetric, `v1`): HMAC-SHA256 keyed with the secret's bytes over
 * `${webhook-id}.${webhook-timestamp}.${body}`, sent as `v1,<base64>`. A secret is `whsec_` and
 * the base64 of 32 random bytes. During a rotation's grace period the header carries one
 * signature per live secret, space separated, the newest first: a receiver that still holds the
 * old secret verifies as well as one that holds the new.
 */
import crypto from 'node:crypto';

const PREFIX = 'whsec_';

export function newSecret(): string {
  return PREFIX + crypto.randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** One `v1,<base64>` signature; `timestamp` in unix seconds. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = crypto.createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one attempt, signed with every live secret. */
export function webhookHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, id, timestamp, body)).join(' '),
  };
}
