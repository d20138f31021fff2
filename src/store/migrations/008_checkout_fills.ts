import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('checkout_quotes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('buyer_address', 'text', (c) => c.notNull())
    .addColumn('delivery_address', 'text', (c) => c.notNull())
    .addColumn('delivery_mode', 'text', (c) => c.notNull())
    .addColumn('fee_rate', 'double precision', (c) => c.notNull())
    .addColumn('lines', 'text', (c) => c.notNull())
    .addColumn('psbt', 'text', (c) => c.notNull())
    .addColumn('inputs_to_sign', 'text', (c) => c.notNull())
    .addColumn('funding', 'text', (c) => c.notNull())
    .addColumn('expected_txid', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('platform_fee_sats', 'bigint', (c) => c.notNull())
    .addColumn('network_fee_sats', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('settlement_id', 'text')
    .addColumn('signed_sha256', 'text')
    .addColumn('completed_at', 'bigint')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('checkout_quotes_buyer').on('checkout_quotes').columns(['buyer_address', 'created_at']).execute();

  await db.schema
    .createTable('fills')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('settlement_id', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref_id', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('asset_longname', 'text')
    .addColumn('quantity_raw', 'text', (c) => c.notNull())
    .addColumn('seller', 'text', (c) => c.notNull())
    .addColumn('buyer', 'text', (c) => c.notNull())
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('platform_fee_sats', 'bigint', (c) => c.notNull())
    .addColumn('delivery_mode', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('broadcast_at', 'bigint', (c) => c.notNull())
    .addColumn('confirmed_at', 'bigint')
    .addColumn('block_index', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('fills_settlement').on('fills').column('settlement_id').execute();
  await db.schema.createIndex('fills_recent').on('fills').columns(['state', 'broadcast_at', 'id']).execute();
  await db.schema.createIndex('fills_asset').on('fills').columns(['asset', 'broadcast_at']).execute();
  await db.schema.createIndex('fills_seller').on('fills').columns(['seller', 'broadcast_at']).execute();
  await db.schema.createIndex('fills_buyer').on('fills').columns(['buyer', 'broadcast_at']).execute();
  await db.schema.createIndex('fills_ref').on('fills').columns(['kind', 'ref_id']).execute();
}
