import type { Kysely } from 'kysely';

/** The devnet's blocks, mempool and pending control operations (src/chain/devnet/tables.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('devnet_blocks')
    .addColumn('height', 'integer', (c) => c.primaryKey())
    .addColumn('hash', 'text', (c) => c.notNull().unique())
    .addColumn('header_hex', 'text', (c) => c.notNull())
    .addColumn('txs_json', 'text', (c) => c.notNull())
    .addColumn('ops_json', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('devnet_mempool')
    .addColumn('txid', 'text', (c) => c.primaryKey())
    .addColumn('hex', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('devnet_pending_ops')
    .addColumn('seq', 'bigint', (c) => c.primaryKey())
    .addColumn('op_json', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('devnet_pending_ops').ifExists().execute();
  await db.schema.dropTable('devnet_mempool').ifExists().execute();
  await db.schema.dropTable('devnet_blocks').ifExists().execute();
}
