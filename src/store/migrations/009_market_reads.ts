import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The order book walks public listings by price, then age, then id, and stops at its bounds;
  // asset and expires_at ride along so the level counts never touch the table rows.
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
