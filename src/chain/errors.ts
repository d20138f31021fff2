/**
 * Classifying a node's refusal into the spec's mempool policy classes. The
 * node's reject reason is data from Bitcoin Core (a stable, documented
 * vocabulary of short codes such as `txn-mempool-conflict`), so classifying it
 * here is reading a value, not matching our own error messages. Rendering the
 * classes as API errors is the HTTP layer's business (settlement/outcome-error.ts,
 * http/error-handler.ts); the chain layer knows nothing of HTTP.
 */

/** The spec's `mempool_policy` values. */
export type MempoolPolicy = 'fee_floor' | 'chain_too_long' | 'truc' | 'dust' | 'nonstandard';

/**
 * Reject reasons are `code` or `code, details` (Core's `TxValidationState::ToString`);
 * older nodes and RPC wrappers sometimes add text after the code. We compare on
 * the leading code and fall back to a few phrases that older releases used.
 */
function reasonCode(reason: string): string {
  const trimmed = reason.trim();
  const comma = trimmed.indexOf(',');
  return (comma === -1 ? trimmed : trimmed.slice(0, comma)).trim();
}

/** Ordered rules: the first match wins, so specific codes come before broad phrases. */
const POLICY_RULES: ReadonlyArray<{ test: (code: string) => boolean; policy: MempoolPolicy }> = [
  // Fee floors: relay floor, a full mempool's rolling floor, RBF and package fee checks.
  { test: (c) => c === 'min relay fee not met' || c === 'mempool min fee not met', policy: 'fee_floor' },
  { test: (c) => c === 'insufficient fee' || c === 'mempool full', policy: 'fee_floor' },
  { test: (c) => c === 'package-fee-too-low' || c === 'package feerate too low', policy: 'fee_floor' },
  // Ancestor/descendant limits (`too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]`, …).
  { test: (c) => c === 'too-long-mempool-chain' || c === 'package-mempool-limits', policy: 'chain_too_long' },
  // A package's child spends an output that is neither confirmed nor in the package (Core's
  // AcceptPackage): an input a reorg or a held relay left unconfirmed. Nothing is wrong with the
  // bytes; the package relays once that input confirms, so it is a chain to wait out, not invalid.
  { test: (c) => c === 'package-not-child-with-unconfirmed-parents', policy: 'chain_too_long' },
  // TRUC (BIP 431): Core 28+ says `TRUC-violation`; pre-release builds said `v3-…`.
  { test: (c) => c === 'TRUC-violation' || /^v3-/.test(c), policy: 'truc' },
  { test: (c) => c === 'dust', policy: 'dust' },
  {
    test: (c) =>
      [
        'scriptpubkey',
        'multi-op-return',
        'datacarrier',
        'tx-size',
        'tx-size-small',
        'bare-multisig',
        'scriptsig-size',
        'scriptsig-not-pushonly',
        'version',
        'bad-txns-nonstandard-inputs',
        'bad-witness-nonstandard',
        'bad-txns-too-many-sigops',
      ].includes(c) || c.startsWith('bad-txns-input-'),
    policy: 'nonstandard',
  },
];

/**
 * The spec's `mempool_policy` class of a Bitcoin Core reject reason, or null when
 * the refusal is not a policy class the spec names (bad signature, non-final, …).
 */
export function mempoolPolicyOf(reason: string): MempoolPolicy | null {
  const code = reasonCode(reason);
  for (const rule of POLICY_RULES) if (rule.test(code)) return rule.policy;
  return null;
}

/** The classes the spec answers with `wait_for_confirmation: true`: the same bytes relay once an input confirms. */
export const waitsForConfirmation = (policy: MempoolPolicy | null | undefined): boolean => policy === 'chain_too_long' || policy === 'truc';

const CONFLICT_CODES = new Set([
  'txn-mempool-conflict',
  // Core 28 replaces conflicts (full-RBF); these refuse a replacement that would need to.
  'bip125-replacement-disallowed',
  'replacement-adds-unconfirmed',
  'bad-txns-inputs-missingorspent',
  'missing-inputs',
  // Older nodes' wording of the same outcome (RPC -25 before Core 0.21).
  'Missing inputs',
  'Inputs missing or spent',
]);

/**
 * True when the reason means an input is already spent by another transaction
 * (in the mempool or the chain). A replacement refused for its fee
 * (`insufficient fee, rejecting replacement …`) also lost to another spend.
 * Note: `missing-inputs` is also what a child gets when its parent is unknown;
 * callers that submit packages should submit the parent first.
 */
export function isConflictReason(reason: string): boolean {
  const code = reasonCode(reason);
  // A package RBF refusal (`package RBF failed: …`, Core 28+) is the package losing to the spends it conflicts with.
  return CONFLICT_CODES.has(code) || /rejecting replacement/.test(reason) || reason.startsWith('package RBF failed');
}

/**
 * The reasons among the conflicts that mean the transaction lost to another spend the node holds
 * in its mempool (a conflicting transaction it keeps, or a replacement it refused to make): the
 * spec's 409 `state_changed` with `mempool_reason`. The rest (`bad-txns-inputs-missingorspent`,
 * `missing-inputs`: the input is already spent in the chain, or unknown) are its `conflict_spend`.
 */
const LOST_RACE_CODES = new Set(['txn-mempool-conflict', 'bip125-replacement-disallowed', 'replacement-adds-unconfirmed']);

export function isLostRaceReason(reason: string): boolean {
  return LOST_RACE_CODES.has(reasonCode(reason)) || /rejecting replacement/.test(reason) || reason.startsWith('package RBF failed');
}

export type RejectionClass =
  | { kind: 'conflict' }
  | { kind: 'policy'; policy: MempoolPolicy }
  | { kind: 'invalid' };

/** Conflict first: a refused replacement is a lost race, not a fee to raise. */
export function classifyRejection(reason: string): RejectionClass {
  if (isConflictReason(reason)) return { kind: 'conflict' };
  const policy = mempoolPolicyOf(reason);
  return policy ? { kind: 'policy', policy } : { kind: 'invalid' };
}
