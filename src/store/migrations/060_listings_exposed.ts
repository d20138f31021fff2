import type { Kysely } from 'kysely';

/** The public feed's `delisted` of exposed listings, newest first by exposed_at (modules/events/public-store.ts `delistedExposed`). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('listings_state_exposed').on('listings').columns(['state', 'exposed_at']).execute();
}
