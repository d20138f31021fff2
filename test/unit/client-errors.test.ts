/**
 * The client's reading of a lost broadcast (spec: 409 state_changed carries `mempool_reason` when a
 * broadcast lost to a conflicting or replacing spend; conflict_spend when an input is already
 * spent): `lostToSpend` is true for both, and false for an ordinary state_changed (re-read) and for
 * the uncertain outcomes (read the operation, never quote again on those).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MarketError } from '../../client/src/errors.js';

test('lostToSpend: state_changed with mempool_reason and conflict_spend, nothing else', () => {
  const lost = new MarketError('state_changed', 'lost', 409, { mempool_reason: 'txn-mempool-conflict', claims_released: true });
  assert.equal(lost.lostToSpend, true);
  assert.equal(lost.uncertain, false);
  assert.equal(new MarketError('conflict_spend', 'spent', 409, { mempool_reason: 'bad-txns-inputs-missingorspent' }).lostToSpend, true);
  assert.equal(new MarketError('state_changed', 'the order changed', 409).lostToSpend, false, 'an ordinary 409: re-read, nothing was broadcast');
  assert.equal(new MarketError('broadcast_unknown', 'unknown', 502).lostToSpend, false);
  assert.equal(new MarketError('mempool_rejected', 'fee', 422, { mempool_reason: 'min relay fee not met' }).lostToSpend, false);
});
