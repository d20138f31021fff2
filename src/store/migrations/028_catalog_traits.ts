import type { Kysely } from 'kysely';

/**
 * The integer traits of a collection's members in one index (offer targets, market/
 * offer-targets-service.ts): a trait filter's member count reads it alone, a range on the series
 * when one is asked, instead of every catalogue row of the collection.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('catalog_assets_traits').on('catalog_assets').columns(['collection_slug', 'series', 'issued_year', 'max_supply_units']).execute();
}
