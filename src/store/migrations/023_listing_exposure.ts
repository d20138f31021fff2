import { sql, type Kysely } from 'kysely';

/**
 * Exposed listings (src/modules/listings/lifecycle.ts): a listing whose signed half reached the
 * network in a checkout that then failed is `exposed` — off the book, still holding its asset
 * outpoint (so the unit cannot be listed again until it moves), with when and why.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('listings').addColumn('exposed_at', 'bigint').execute();
  await db.schema.alterTable('listings').addColumn('exposure_reason', 'text').execute();
  await sql`drop index listings_live_outpoint`.execute(db);
  await sql`create unique index listings_live_outpoint on listings (utxo_outpoint) where state in ('pending', 'active', 'reserved', 'exposed')`.execute(db);
}
