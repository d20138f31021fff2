/**
 * A journaled settlement as an operation-status read shows it (the spec's retry table: after a
 * 502/503 during a completion, read the saved operation status before anything else). Checkout's
 * read (`GET /v1/checkout/quotes/{id}`) and the accept reads of exact and collection offers share
 * these fields, so a client reconciles every completion the same way.
 *
 * status: broadcasting (journaled, not yet accepted by the network; recovery keeps relaying; `hold`
 * set when the node refused it for a wait-class reason and the kind holds it) →
 * broadcast (relayed) → confirmed (seen in a block by the indexer; a reorg returns it to
 * broadcast) | failed (the node refused it or an input was spent elsewhere; claims released).
 */
import { Type } from '@sinclair/typebox';
import { classifyRejection, isLostRaceReason } from '../chain/errors.js';
import type { SettlementHold, SettlementRow } from './journal.js';
import type { Db } from '../store/db.js';
import { Nullable } from '../http/validators.js';

export type SettledStatus = 'broadcasting' | 'broadcast' | 'confirmed' | 'failed';

export function settledStatus(s: SettlementRow): SettledStatus {
  switch (s.state) {
    case 'relayed':
      return 'broadcast';
    case 'confirmed':
      return 'confirmed';
    case 'rejected':
    case 'conflicted':
      return 'failed';
    default:
      return 'broadcasting';
  }
}

/** The spec's error code a failed operation ended with (the one its completion answered), and its mempool policy when one applies. */
export function failureOf(s: SettlementRow): { code: 'state_changed' | 'conflict_spend' | 'mempool_rejected' | 'invalid_transaction'; mempool_policy: string | null } {
  const reason = s.mempool_reason ?? '';
  // A lost race is state_changed (settlement/outcome-error.ts).
  const conflict = () => ({ code: isLostRaceReason(reason) ? ('state_changed' as const) : ('conflict_spend' as const), mempool_policy: null });
  if (s.state === 'conflicted') return conflict();
  const v = classifyRejection(reason);
  if (v.kind === 'policy') return { code: 'mempool_rejected', mempool_policy: v.policy };
  return v.kind === 'conflict' ? conflict() : { code: 'invalid_transaction', mempool_policy: null };
}

/** The settlement fields of an operation read; `tipHeight` is the market's indexed tip, `hold` the journal's holdOf(s). */
export function settlementFields(s: SettlementRow | undefined, failed: boolean, tipHeight: number | null, hold: SettlementHold | null = null) {
  const f = failed && s ? failureOf(s) : null;
  return {
    hold,
    claims_released: failed,
    mempool_reason: s?.mempool_reason ?? null,
    failure_code: f?.code ?? null,
    mempool_policy: f?.mempool_policy ?? null,
    confirmations: s?.state === 'confirmed' && s.confirmed_height !== null && tipHeight !== null ? Math.max(1, tipHeight - s.confirmed_height + 1) : null,
    block_index: s?.state === 'confirmed' ? s.confirmed_height : null,
  };
}

/** A held settlement (journal.ts SettlementHandlers.holdOnWait), in completion answers and operation reads. */
export const SettlementHoldSchema = Nullable(
  Type.Object(
    {
      mempool_reason: Type.String({ description: "the node's reject reason (e.g. package-not-child-with-unconfirmed-parents)" }),
      mempool_policy: Type.String({ description: 'chain_too_long or truc' }),
      until: Type.Integer({ description: 'unix seconds: a refusal after this releases the settlement (status failed, claims released)' }),
    },
    {
      title: 'SettlementHold',
      description:
        'Set while a collection or exact accept is journaled after the node refused it for a reason that passes once an input confirms (an input a reorg or a held relay left unconfirmed): the claims are held and recovery relays the same bytes again until they land, lose to a conflicting spend, or `until` passes. Never sign again meanwhile. Null otherwise.',
    },
  ),
);

/** The schema of `settlementFields`, written once for every operation read. */
export const SettlementFields = {
  hold: SettlementHoldSchema,
  claims_released: Type.Boolean({ description: 'true once a failed settlement released every claim (status failed)' }),
  mempool_reason: Nullable(Type.String({ description: "on failed: the node's reject reason; while broadcasting under a hold: the refusal it waits out" })),
  failure_code: Nullable(Type.String({ description: 'on failed: mempool_rejected, state_changed (lost to a conflicting or replacing spend), conflict_spend (an input already spent in the chain) or invalid_transaction' })),
  mempool_policy: Nullable(Type.String({ description: 'on failed with mempool_rejected: fee_floor, chain_too_long, truc, dust or nonstandard' })),
  confirmations: Nullable(Type.Integer({ minimum: 1, description: "on confirmed: confirmations by the market's indexed tip" })),
  block_index: Nullable(Type.Integer({ minimum: 0, description: 'on confirmed: the height of the confirming block' })),
};

/**
 * The newest settlement journaled for `refId` (an authorization, an accept quote): a released
 * one stays the answer until another is journaled, so a completion whose reply was lost reads
 * how it ended even after the subject is free to be accepted again.
 */
export async function latestSettlement(db: Db, kind: string, refId: string): Promise<SettlementRow | undefined> {
  return db.selectFrom('settlements').selectAll().where('kind', '=', kind).where('ref_id', '=', refId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}
