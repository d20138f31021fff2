/**
 * The one owner of webhook endpoint state and of the delivery log (tables.ts): register, rotate
 * the secret, record an attempt (its log row and the endpoint's cursor or retry state in one
 * transaction), disable, queue and settle a replay, delete. Each transition is one guarded UPDATE
 * naming the state it may leave, so a lost race (two dispatchers, a delete mid-delivery) changes
 * nothing and answers false.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db, Tx } from '../../store/db.js';
import type { DatabaseSchema } from '../../store/schema.js';
import type { AttemptResult } from './sender.js';
import type { DeliveryOutcome, DeliveryRow, DisabledReason, EndpointRow } from './tables.js';

export async function createEndpoint(db: Db, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** Removes the endpoint and its log; false when it was already gone. */
export async function deleteEndpoint(db: Db, id: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const res = await tx.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
    await tx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    return Number(res.numDeletedRows) === 1;
  });
}

/** A new current secret; the one it replaces keeps signing until `graceUntil` (ms). Guarded on the secret read. */
export async function rotateSecret(db: Db, ep: EndpointRow, secret: string, graceUntil: number, now: number): Promise<boolean> {
  const res = await db
    .updateTable('webhook_endpoints')
    .set({ secret, previous_secret: ep.secret, previous_secret_expires_at: graceUntil, updated_at: now })
    .where('id', '=', ep.id)
    .where('secret', '=', ep.secret)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export interface AttemptRecord {
  delivery: DeliveryRow;
  result: AttemptResult;
  /** ms */
  now: number;
  /** On a failure: when to try again. */
  retryAt: number;
  /** On a failure: disable instead of retrying. */
  disable: DisabledReason | null;
  /** The dispatcher's leadership check (src/cluster/fence.ts): a stale leader's record aborts. */
  fence?: (tx: Tx) => Promise<void>;
}

const attemptGuard = (tx: Tx, ep: EndpointRow) =>
  tx.updateTable('webhook_endpoints').where('id', '=', ep.id).where('state', '=', 'active').where('last_seq', '=', ep.last_seq).where('attempts', '=', ep.attempts);

/**
 * One attempt at the event after the endpoint's cursor: the log row, and either the cursor moved
 * to the event (success) or the retry state (failure, or disabling). Returns the endpoint as it
 * now is, or null when another writer moved it first: the attempt is still logged (it was sent),
 * the endpoint is left as that writer made it.
 */
export async function recordAttempt(db: Db, ep: EndpointRow, r: AttemptRecord): Promise<EndpointRow | null> {
  return db.transaction().execute(async (tx) => {
    await r.fence?.(tx);
    let next: EndpointRow;
    if (r.result.outcome === 'succeeded') {
      // Due at once for the next event (0, not now: no clock can leave it waiting).
      next = { ...ep, last_seq: r.delivery.seq, attempts: 0, failing_since: null, next_attempt_at: 0, updated_at: r.now };
    } else if (r.disable) {
      next = { ...ep, state: 'disabled', disabled_reason: r.disable, disabled_at: r.now, attempts: ep.attempts + 1, failing_since: ep.failing_since ?? r.now, updated_at: r.now };
    } else {
      next = { ...ep, attempts: ep.attempts + 1, failing_since: ep.failing_since ?? r.now, next_attempt_at: r.retryAt, updated_at: r.now };
    }
    // The lease is the dispatcher's business (leaseEndpoint, releaseEndpoint): an attempt leaves it as it is.
    const { id: _id, lease_holder: _holder, lease_until: _until, lease_epoch: _epoch, ...changes } = next;
    const res = await attemptGuard(tx, ep).set(changes).executeTakeFirst();
    const exists = Number(res.numUpdatedRows) === 1 || (await tx.selectFrom('webhook_endpoints').select('id').where('id', '=', ep.id).executeTakeFirst()) !== undefined;
    // A deleted endpoint takes its log with it; an attempt that raced the delete leaves no row behind.
    if (exists) await tx.insertInto('webhook_deliveries').values(r.delivery).execute();
    await countAttempt(tx, r.result.outcome);
    return Number(res.numUpdatedRows) === 1 ? next : null;
  });
}

/**
 * Free for a dispatcher leading the webhook role at `epoch`: no lease running, its own, or one
 * taken under an older epoch (that leader is gone or fenced out: its next record aborts).
 */
export const leaseFree = (holder: string, epoch: number, now: number) => (eb: ExpressionBuilder<DatabaseSchema, 'webhook_endpoints'>) =>
  eb.or([eb('lease_until', '<=', now), eb('lease_holder', '=', holder), eb('lease_epoch', '<', epoch)]);

/**
 * Takes (or renews) the endpoint for `holder`, leading at `epoch`, until `until` (ms). False
 * when another dispatcher of this or a newer epoch is sending to it, or it is no longer active.
 * A crashed leader's lease is taken over by the next leader at once (a newer epoch); one within
 * an epoch simply runs out. `fence` (the role's leadership check) makes a stale leader's
 * renewal abort, so it sends nothing more.
 */
export async function leaseEndpoint(db: Db, id: string, holder: string, epoch: number, now: number, until: number, fence?: (tx: Tx) => Promise<void>): Promise<boolean> {
  const res = await db.transaction().execute(async (tx) => {
    await fence?.(tx);
    return tx
      .updateTable('webhook_endpoints')
      .set({ lease_holder: holder, lease_until: until, lease_epoch: epoch })
      .where('id', '=', id)
      .where('state', '=', 'active')
      .where('lease_epoch', '<=', epoch)
      .where(leaseFree(holder, epoch, now))
      .executeTakeFirst();
  });
  return Number(res.numUpdatedRows) === 1;
}

export async function releaseEndpoint(db: Db, id: string, holder: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ lease_holder: null, lease_until: 0 }).where('id', '=', id).where('lease_holder', '=', holder).execute();
}

/** A replay waits in the log as `queued` until a dispatcher takes it (`sending`), then records its outcome. */
export async function queueReplay(db: Db, row: DeliveryRow): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

/** queued (or a `sending` left behind by a dispatcher that died before `staleBefore`) → sending; false when another dispatcher took it. */
export async function takeReplay(db: Db, id: string, now: number, staleBefore: number): Promise<boolean> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ outcome: 'sending', attempted_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('outcome', '=', 'queued'), eb.and([eb('outcome', '=', 'sending'), eb('attempted_at', '<', staleBefore)])]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** sending → the attempt's outcome. */
export async function settleReplay(db: Db, id: string, r: AttemptResult, now: number): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const res = await tx
      .updateTable('webhook_deliveries')
      .set({ outcome: r.outcome, response_status: r.status, duration_ms: r.durationMs, error: r.error, attempted_at: now })
      .where('id', '=', id)
      .where('outcome', '=', 'sending')
      .executeTakeFirst();
    await countAttempt(tx, r.outcome);
    return Number(res.numUpdatedRows) === 1;
  });
}

/** One more attempt of this outcome, in the transaction that logs it. */
async function countAttempt(tx: Tx, outcome: DeliveryOutcome): Promise<void> {
  await tx
    .insertInto('webhook_delivery_counts')
    .values({ outcome, n: 1 })
    .onConflict((oc) => oc.column('outcome').doUpdateSet({ n: sql<number>`webhook_delivery_counts.n + 1` }))
    .execute();
}

/** The log's retention: rows older than `before` (ms) go (a replay still queued that long waits on a disabled endpoint). */
export async function pruneDeliveries(db: Db, before: number): Promise<number> {
  const res = await db.deleteFrom('webhook_deliveries').where('attempted_at', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
