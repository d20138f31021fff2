import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('settlements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('txs', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull().unique())
    .addColumn('is_package', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('mempool_reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('relayed_at', 'bigint')
    .addColumn('confirmed_height', 'integer')
    .addColumn('confirmed_hash', 'text')
    .addColumn('confirmed_at', 'bigint')
    .execute();
  await db.schema.createIndex('settlements_state').on('settlements').columns(['state', 'updated_at']).execute();
  await db.schema.createIndex('settlements_ref').on('settlements').columns(['kind', 'ref_id']).execute();
  await db.schema
    .createTable('outpoint_claims')
    .addColumn('outpoint', 'text', (c) => c.primaryKey())
    .addColumn('settlement_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outpoint_claims_settlement').on('outpoint_claims').column('settlement_id').execute();
}
