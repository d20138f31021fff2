import type { Kysely } from 'kysely';

/**
 * Listings follow reorgs of their asset UTXO (see src/modules/listings/watcher.ts):
 * `utxo_height` is the block that confirmed a reused unit's asset UTXO (null while a reorg has
 * it unconfirmed); `spent_height` is the block whose spend ended a listing `invalid`, kept with
 * the signed half until that spend is final.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('listings').addColumn('utxo_height', 'integer').execute();
  await db.schema.alterTable('listings').addColumn('spent_height', 'integer').execute();
  await db.schema.createIndex('listings_utxo_height').on('listings').column('utxo_height').execute();
  await db.schema.createIndex('listings_spent_height').on('listings').column('spent_height').execute();
}
