import { ApiError } from '../http/errors.js';
import type { RelayOutcome } from './relay.js';
import { isLostRaceReason, mempoolPolicyOf, waitsForConfirmation } from '../chain/errors.js';

/**
 * How a completion route answers when its journaled settlement did not relay.
 * `claims_released` tells the client the quote is dead and a new one is needed.
 */
/**
 * A relay that lost to another spend, as the spec splits it: lost to a conflicting or replacing
 * spend in the node's mempool, 409 `state_changed` with the node's `mempool_reason` (re-read the
 * order or outpoint); an input already spent in the chain (or unknown), 409 `conflict_spend`.
 */
export function conflictError(reason: string, text: { lost: string; spent: string }, extras: Record<string, unknown>): ApiError {
  return isLostRaceReason(reason) ? new ApiError('state_changed', text.lost, { ...extras, mempool_reason: reason }) : new ApiError('conflict_spend', text.spent, { ...extras, mempool_reason: reason });
}

/** A completion's success status: 202 while its settlement is still journaled (held, or waiting on an unknown outcome), else 200. */
export function completionAnswer<T extends { settlement_state: string | null }>(result: T): { status: 200 | 202; result: T } {
  return { status: result.settlement_state === 'journaled' ? 202 : 200, result };
}

export function relayOutcomeError(outcome: Exclude<RelayOutcome, { status: 'relayed' }>, settlementId: string): ApiError {
  switch (outcome.status) {
    case 'conflicted':
      return conflictError(outcome.reason, { lost: `The broadcast lost to a conflicting or replacing spend: ${outcome.reason}`, spent: 'An input was already spent by another transaction' }, { claims_released: true, settlement_id: settlementId });
    case 'rejected': {
      const wait = waitsForConfirmation(outcome.policy);
      if (!outcome.policy) {
        return new ApiError('invalid_transaction', `The node refused the transaction: ${outcome.reason}`, {
          mempool_reason: outcome.reason,
          claims_released: true,
          settlement_id: settlementId,
        });
      }
      return new ApiError('mempool_rejected', `The node refused the transaction: ${outcome.reason}`, {
        mempool_policy: outcome.policy,
        mempool_reason: outcome.reason,
        claims_released: true,
        ...(wait ? { wait_for_confirmation: true } : {}),
        settlement_id: settlementId,
      });
    }
    case 'partial': {
      // Part of the package is on the network and keeps its claims; the refused member is named.
      const first = outcome.refused[0]!;
      const extras = { mempool_reason: first.reason, claims_released: false, landed_txids: outcome.landed, refused_txid: first.txid, settlement_id: settlementId };
      if (first.conflict) return conflictError(first.reason, { lost: `Part of the package is in the mempool; ${first.txid} lost to a conflicting or replacing spend`, spent: `Part of the package is in the mempool; an input of ${first.txid} was already spent` }, extras);
      const policy = mempoolPolicyOf(first.reason);
      const text = `Part of the package is in the mempool; the node refused ${first.txid}: ${first.reason}`;
      return policy ? new ApiError('mempool_rejected', text, { ...extras, mempool_policy: policy }) : new ApiError('invalid_transaction', text, extras);
    }
    case 'unknown':
      return new ApiError('broadcast_unknown', 'The broadcast outcome is not known; the signed settlement is journaled and recovery will relay it. Read the operation status; do not re-sign.', {
        retryable: true,
        settlement_id: settlementId,
      });
  }
}
