import type { Kysely } from 'kysely';

/**
 * Artist profiles editable by eligible addresses (issue 19):
 * - on `artists`, the catalogue's permission to edit the display name (`name_editable`), the
 *   edited display name (`display_name`, null: the credit is shown) and when an editor last
 *   changed the profile (`edited_at`, null: never; a catalogue import then keeps the edited
 *   fields instead of overwriting them);
 * - `artist_editors`: addresses the operator names per artist in the catalogue;
 * - `artist_profile_edits`: every edit (who, when, what changed), for the operator.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('artists').addColumn('name_editable', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('artists').addColumn('display_name', 'text').execute();
  await db.schema.alterTable('artists').addColumn('edited_at', 'bigint').execute();

  await db.schema
    .createTable('artist_editors')
    .addColumn('artist_id', 'text', (c) => c.notNull().references('artists.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('artist_editors_pk', ['artist_id', 'address'])
    .execute();

  await db.schema
    .createTable('artist_profile_edits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // No foreign key: the record outlives an artist a later catalogue import drops.
    .addColumn('artist_id', 'text', (c) => c.notNull())
    .addColumn('artist_name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('editor', 'text', (c) => c.notNull())
    .addColumn('grounds', 'text', (c) => c.notNull())
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('edited_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('artist_profile_edits_artist').on('artist_profile_edits').columns(['artist_id', 'version']).execute();
  await db.schema.createIndex('artist_profile_edits_time').on('artist_profile_edits').columns(['edited_at', 'id']).execute();
}
