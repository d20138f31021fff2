import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('collections')
    .addColumn('slug', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('artists')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('bio', 'text')
    .addColumn('website', 'text')
    .addColumn('x_url', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createIndex('artists_slug').on('artists').column('slug').execute();
  await db.schema.createIndex('artists_name').on('artists').column('name').unique().execute();
  await db.schema
    .createTable('catalog_assets')
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('collection_slug', 'text', (c) => c.notNull().references('collections.slug').onDelete('cascade'))
    .addColumn('is_primary', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('artist', 'text')
    .addColumn('max_supply_units', 'bigint')
    .addColumn('issued_year', 'integer')
    .addColumn('series', 'integer')
    .addColumn('media_kind', 'text')
    .addColumn('protocol_subtype', 'text')
    .addPrimaryKeyConstraint('catalog_assets_pk', ['asset', 'collection_slug'])
    .execute();
  await db.schema.createIndex('catalog_assets_collection').on('catalog_assets').column('collection_slug').execute();
  await db.schema.createIndex('catalog_assets_artist').on('catalog_assets').column('artist').execute();
}
