import type { Kysely } from 'kysely';

/**
 * Sign-in challenges are named by a random id, not by (address, issued_at second): under the
 * old key a stranger asking one challenge a second for someone else's address filled the
 * address's few slots and kept its own sign-in at 429. Any number of challenges for one address
 * now coexist, bounded by the per-IP sign-in budget and by the purge of expired rows.
 * Challenges live ten minutes, so the old table's rows are dropped, not copied.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('auth_challenges').execute();
  await db.schema
    .createTable('auth_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'bigint', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('auth_challenges_address_issued').on('auth_challenges').columns(['address', 'issued_at']).execute();
  await db.schema.createIndex('auth_challenges_expiry').on('auth_challenges').column('expires_at').execute();
}
