/**
 * The table from Bitcoin Core reject reasons to the spec's `mempool_policy`
 * classes and to conflicts, and the ApiError renderings built on it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyRejection, isConflictReason, mempoolPolicyOf } from '../../../src/chain/errors.js';
import { TxRejected, UpstreamUnavailable, type BitcoinBackend } from '../../../src/chain/ports.js';
import { toApiError } from '../../../src/http/error-handler.js';
import { relayOnce } from '../../../src/settlement/relay.js';
import { relayOutcomeError } from '../../../src/settlement/outcome-error.js';

/** What a completion route answers when the node refuses with `reason`: the production path, relay then render. */
async function refusalAnswer(reason: string) {
  const bitcoin = { broadcast: () => Promise.reject(new TxRejected(reason)) } as unknown as BitcoinBackend;
  const outcome = await relayOnce(bitcoin, [{ txid: '00'.repeat(32), hex: '00' }]);
  assert.notEqual(outcome.status, 'relayed');
  return relayOutcomeError(outcome as Exclude<typeof outcome, { status: 'relayed' }>, 'set-1');
}

const POLICY_TABLE: Array<[string, ReturnType<typeof mempoolPolicyOf>]> = [
  ['min relay fee not met', 'fee_floor'],
  ['min relay fee not met, 100 < 141', 'fee_floor'],
  ['mempool min fee not met, 141 < 282', 'fee_floor'],
  ['insufficient fee, rejecting replacement 6c0f…; new feerate 0.00001 <= old feerate 0.00002', 'fee_floor'],
  ['mempool full', 'fee_floor'],
  ['too-long-mempool-chain', 'chain_too_long'],
  ['too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]', 'chain_too_long'],
  ['too-long-mempool-chain, exceeds descendant size limit for tx 45f7… [limit: 101000]', 'chain_too_long'],
  ['package-mempool-limits', 'chain_too_long'],
  ['package-not-child-with-unconfirmed-parents', 'chain_too_long'],
  ['TRUC-violation, version=3 tx 45f7… (wtxid=b8aa…) would have too many ancestors', 'truc'],
  ['TRUC-violation, version=3 child tx 45f7… is too big: 1200 > 1000 virtual bytes', 'truc'],
  ['v3-rule-violation', 'truc'],
  ['v3-violation, tx would exceed descendant count limit', 'truc'],
  ['dust', 'dust'],
  ['dust, tx with dust output must be 0-fee', 'dust'],
  ['scriptpubkey', 'nonstandard'],
  ['multi-op-return', 'nonstandard'],
  ['datacarrier', 'nonstandard'],
  ['tx-size', 'nonstandard'],
  ['tx-size-small', 'nonstandard'],
  ['bare-multisig', 'nonstandard'],
  ['scriptsig-size', 'nonstandard'],
  ['scriptsig-not-pushonly', 'nonstandard'],
  ['version', 'nonstandard'],
  ['bad-txns-nonstandard-inputs', 'nonstandard'],
  ['bad-txns-input-script-unknown', 'nonstandard'],
  ['bad-witness-nonstandard', 'nonstandard'],
  ['txn-mempool-conflict', null],
  ['bad-txns-inputs-missingorspent', null],
  ['missing-inputs', null],
  ['non-final', null],
  ['non-BIP68-final', null],
  ['mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)', null],
  ['max-fee-exceeded', null],
];

const CONFLICTS = [
  'txn-mempool-conflict',
  'bad-txns-inputs-missingorspent',
  'missing-inputs',
  'Missing inputs',
  'Inputs missing or spent',
  'insufficient fee, rejecting replacement 6c0f…, less fees than conflicting txs; 0.00001 < 0.00002',
  // Core 28+ package RBF refusals: the package lost to what it tried to replace.
  'package RBF failed: insufficient anti-DoS fees, rejecting replacement 45f7…, less fees than conflicting txs; 0.00003 < 0.00005',
  'package RBF failed: insufficient feerate: does not improve feerate diagram',
  'package RBF failed: 6c0f… has 2 descendants, max 1 allowed',
];

void describe('mempoolPolicyOf', () => {
  for (const [reason, policy] of POLICY_TABLE) {
    void it(`${JSON.stringify(reason)} → ${String(policy)}`, () => assert.equal(mempoolPolicyOf(reason), policy));
  }
  void it('does not match a code that only starts like a known one', () => {
    assert.equal(mempoolPolicyOf('dusty'), null);
    assert.equal(mempoolPolicyOf('versionx'), null);
  });
});

void describe('conflicts', () => {
  for (const reason of CONFLICTS) {
    void it(`${JSON.stringify(reason)} is a conflict`, () => {
      assert.equal(isConflictReason(reason), true);
      assert.deepEqual(classifyRejection(reason), { kind: 'conflict' });
    });
  }
  void it('fee and policy refusals are not conflicts', () => {
    for (const reason of ['min relay fee not met, 100 < 141', 'dust', 'TRUC-violation, x', 'non-final']) {
      assert.equal(isConflictReason(reason), false, reason);
    }
    assert.deepEqual(classifyRejection('non-final'), { kind: 'invalid' });
  });
});

void describe('ApiError renderings', () => {
  void it('UpstreamUnavailable → upstream_unavailable with its status, retryable (the route error renderer)', () => {
    for (const status of [502, 503] as const) {
      const e = toApiError(new UpstreamUnavailable('counterparty', 'counterparty not caught up', status), {} as Parameters<typeof toApiError>[1]);
      assert.equal(e.code, 'upstream_unavailable');
      assert.equal(e.status, status);
      assert.equal(e.toBody().retryable, true);
    }
  });

  void it('a refused relay → state_changed (lost to a conflicting or replacing spend), conflict_spend (input spent in the chain), mempool_rejected (with wait_for_confirmation) or invalid_transaction, claims released', async () => {
    // The spec: state_changed carries mempool_reason when a broadcast lost to a conflicting or replacing spend.
    for (const reason of ['txn-mempool-conflict', 'insufficient fee, rejecting replacement abc; new feerate 0.0001 <= old feerate 0.0002', 'replacement-adds-unconfirmed, x', 'package RBF failed: insufficient anti-DoS fees']) {
      const lost = await refusalAnswer(reason);
      assert.deepEqual([lost.code, lost.status, lost.extras.mempool_reason, lost.extras.claims_released], ['state_changed', 409, reason, true], reason);
    }
    const conflict = await refusalAnswer('bad-txns-inputs-missingorspent');
    assert.equal(conflict.code, 'conflict_spend');
    assert.equal(conflict.status, 409);
    assert.equal(conflict.extras.mempool_reason, 'bad-txns-inputs-missingorspent');
    assert.equal(conflict.extras.claims_released, true);

    const fee = await refusalAnswer('min relay fee not met, 100 < 141');
    assert.equal(fee.code, 'mempool_rejected');
    assert.equal(fee.status, 422);
    assert.equal(fee.extras.mempool_policy, 'fee_floor');
    assert.equal(fee.extras.mempool_reason, 'min relay fee not met, 100 < 141');
    assert.equal(fee.extras.wait_for_confirmation, undefined);

    const chain = await refusalAnswer('too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]');
    assert.equal(chain.extras.mempool_policy, 'chain_too_long');
    assert.equal(chain.extras.wait_for_confirmation, true);
    assert.equal((await refusalAnswer('TRUC-violation, x')).extras.wait_for_confirmation, true);
    // A package child over an input a reorg unconfirmed (sim day 9115): wait, not a bad transaction.
    const unconfirmed = await refusalAnswer('package-not-child-with-unconfirmed-parents');
    assert.deepEqual([unconfirmed.code, unconfirmed.extras.mempool_policy, unconfirmed.extras.wait_for_confirmation], ['mempool_rejected', 'chain_too_long', true]);

    const invalid = await refusalAnswer('non-final');
    assert.equal(invalid.code, 'invalid_transaction');
  });
});
