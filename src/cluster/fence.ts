import type { Tx } from '../store/db.js';

/** A write by a leader whose role another instance has taken since: it must not apply. */
export class FencedOut extends Error {
  constructor(
    readonly role: string,
    readonly epoch: number,
  ) {
    super(`fenced out: ${role} epoch ${epoch} is no longer the leader's`);
    this.name = 'FencedOut';
  }
}

/**
 * Leadership of one role, as held by this instance since `epoch`. `check` is called inside the
 * transaction of every write the role guards (an indexer block, a journal state change by
 * recovery): one guarded statement that must touch the role's row at this epoch, or the whole
 * transaction aborts. On PostgreSQL the statement also locks the row until the commit, so a new
 * leader's epoch increment waits for a stale leader's last write and then reads after it.
 */
export interface Lease {
  readonly role: string;
  readonly epoch: number;
  check(tx: Tx): Promise<void>;
}

export function lease(role: string, epoch: number): Lease {
  return {
    role,
    epoch,
    check: async (tx) => {
      const res = await tx.updateTable('leader_epochs').set({ epoch }).where('role', '=', role).where('epoch', '=', epoch).executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new FencedOut(role, epoch);
    },
  };
}
