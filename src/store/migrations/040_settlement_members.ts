import type { Kysely } from 'kysely';

/**
 * One row per transaction of a journaled settlement (src/settlement/journal.ts): Bitcoin Core
 * validates a package's members one by one first, so a parent can reach the mempool while its
 * child is refused. The journal records each member's fate instead of one verdict for all.
 * Settlements journaled before this migration have no rows; they follow their settlement's state.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('settlement_members')
    .addColumn('settlement_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('settlement_members_pk', ['settlement_id', 'position'])
    .execute();
  await db.schema.createIndex('settlement_members_txid').on('settlement_members').column('txid').execute();
}
