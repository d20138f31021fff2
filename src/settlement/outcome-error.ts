import { ApiError } from '../http/errors.js';
import type { RelayOutcome } from './relay.js';

/**
 * How a completion route answers when its journaled settlement did not relay.
 * `claims_released` tells the client the quote is dead and a new one is needed.
 */
export function relayOutcomeError(outcome: Exclude<RelayOutcome, { status: 'relayed' }>, settlementId: string): ApiError {
  switch (outcome.status) {
    case 'conflicted':
      return new ApiError('conflict_spend', 'An input was already spent by another transaction', {
        mempool_reason: outcome.reason,
        claims_released: true,
        settlement_id: settlementId,
      });
    case 'rejected': {
      const wait = outcome.policy === 'chain_too_long' || outcome.policy === 'truc';
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
    case 'unknown':
      return new ApiError('broadcast_unknown', 'The broadcast outcome is not known; the signed settlement is journaled and recovery will relay it. Read the operation status; do not re-sign.', {
        retryable: true,
        settlement_id: settlementId,
      });
  }
}
