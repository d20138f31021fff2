import type { Kysely } from 'kysely';

/** A seller's listings newest first, a page at a time (GET /v1/address/{address}/listings; listings/seller-listings.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('listings_seller_created').on('listings').columns(['seller', 'created_at', 'id']).execute();
}
