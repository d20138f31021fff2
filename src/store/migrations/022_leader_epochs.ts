import type { Kysely } from 'kysely';

/** One row per leader role: the fencing epoch a new leader increments when it takes over (src/cluster/). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('leader_epochs')
    .addColumn('role', 'text', (c) => c.primaryKey())
    .addColumn('epoch', 'bigint', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('acquired_at', 'bigint', (c) => c.notNull())
    .execute();
}
