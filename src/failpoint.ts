/**
 * Failpoints: named places in production code where the crash tests make the process die at
 * once (SIGKILL: no cleanup, no pending write flushed, as a power cut or the OOM killer would).
 * Armed by CRASH_AT=<name>, read once into config; off by default, and armed only by the crash
 * tests (test/helpers/crash.ts). Each name says where it stands.
 */
export const FAILPOINTS = [
  /** Checkout completion: listings claimed and the settlement journaled, before the commit. */
  'checkout-claim-before-commit',
  /** The node refused a journaled settlement's first relay, before its claims are released. */
  'relay-refused-before-release',
  /** Attach-and-list: the attach settlement journaled, before the listing row is written. */
  'attach-list-between-rows',
  /** The indexer applied a block's watchers, before its cursor row and the commit. */
  'indexer-block-before-commit',
  /** The indexer rolled a reorg's blocks back, before deleting their cursor rows and the commit. */
  'indexer-rollback-before-commit',
  /** Collection-offer accept: the signer co-signed, before the settlement row and the commit. */
  'policy-accept-after-cosign',
  /** Collection-offer accept: journaled and committed, before the package is submitted. */
  'policy-accept-after-journal',
] as const;

export type FailpointName = (typeof FAILPOINTS)[number];
export type Failpoint = (name: FailpointName) => void;

/** Never fires. */
export const noFailpoint: Failpoint = () => undefined;

/** The failpoint function for the armed name (none: a no-op). */
export function failpointFor(armed: FailpointName | undefined): Failpoint {
  if (!armed) return noFailpoint;
  return (name) => {
    if (name === armed) process.kill(process.pid, 'SIGKILL');
  };
}
