import { sql, type CompiledQuery } from 'kysely';
import type { Db, Tx } from '../store/db.js';

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

/**
 * The statement that makes a new leader: the role's next epoch (1 for a role never held), with
 * its holder. Compiled here, the one writer of `leader_epochs`, and run by the leadership on
 * the session that holds the role's lock (PostgreSQL) or on the store (SQLite).
 */
export function takeEpoch(db: Db, role: string, holder: string, now: number): CompiledQuery<{ epoch: number | string }> {
  return db
    .insertInto('leader_epochs')
    .values({ role, epoch: 1, holder, acquired_at: now })
    .onConflict((oc) => oc.column('role').doUpdateSet({ epoch: sql<number>`leader_epochs.epoch + 1`, holder, acquired_at: now }))
    .returning('epoch')
    .compile();
}
