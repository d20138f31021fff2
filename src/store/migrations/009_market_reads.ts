import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The order book. Per collection, from its member assets: each asset's public listings in
  // price order, with what the level counts and the ranking read (no table rows touched).
  await db.schema.createIndex('listings_member').on('listings').columns(['asset', 'state', 'price_sats', 'expires_at', 'created_at', 'id']).execute();
  // A collection's member assets without touching catalogue rows.
  await db.schema.createIndex('catalog_assets_members').on('catalog_assets').columns(['collection_slug', 'asset']).execute();
  // Per price level of a deep book: the market's listings at one price, oldest first.
  await db.schema.createIndex('listings_book').on('listings').columns(['state', 'price_sats', 'created_at', 'id', 'asset', 'expires_at']).execute();

  await db.schema
    .createTable('cp_assets')
    .addColumn('asset', 'text', (c) => c.primaryKey())
    .addColumn('asset_longname', 'text')
    .addColumn('divisible', 'integer')
    .addColumn('refreshed_height', 'integer', (c) => c.notNull())
    .addColumn('refreshed_at', 'bigint', (c) => c.notNull())
    .addColumn('stale', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('cp_assets_refreshed').on('cp_assets').columns(['stale', 'refreshed_height']).execute();

  await db.schema
    .createTable('cp_balances')
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('utxo', 'text')
    .addColumn('quantity_raw', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cp_balances_pk', ['asset', 'holder'])
    .execute();

  await db.schema
    .createTable('cp_holdings')
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('cp_holdings_pk', ['asset', 'address'])
    .execute();
  await db.schema.createIndex('cp_holdings_address').on('cp_holdings').columns(['address', 'asset']).execute();

  await db.schema
    .createTable('cp_view_blocks')
    .addColumn('height', 'integer', (c) => c.primaryKey())
    .addColumn('as_of_event_index', 'bigint')
    .execute();
}
