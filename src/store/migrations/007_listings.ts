import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('listing_drafts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('seller', 'text', (c) => c.notNull())
    .addColumn('asset_source', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('quantity_raw', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('asset_txid', 'text')
    .addColumn('asset_vout', 'integer')
    .addColumn('asset_outpoint', 'text')
    .addColumn('utxo_value_sats', 'bigint')
    .addColumn('attach_psbt', 'text')
    .addColumn('attach_signers', 'text')
    .addColumn('attach_inputs', 'text')
    .addColumn('expected_txid', 'text')
    .addColumn('attach_txid', 'text')
    .addColumn('fee_rate', 'double precision')
    .addColumn('network_fee_sats', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('protocol_fee_raw', 'text', (c) => c.notNull().defaultTo('0'))
    .addColumn('protocol_fee_actual_raw', 'text')
    .addColumn('protocol_fee_block', 'integer')
    .addColumn('protocol_fee_charged_at', 'bigint')
    .addColumn('price_sats', 'bigint')
    .addColumn('seller_tap_key', 'text')
    .addColumn('listing_id', 'text')
    .addColumn('reopened', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('confirmed_height', 'integer')
    .addColumn('confirmed_hash', 'text')
    .addColumn('spent_height', 'integer')
    .addColumn('bitcoin_confirmed_at', 'bigint')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('listing_drafts_idem').on('listing_drafts').columns(['seller', 'idempotency_key']).unique().execute();
  await db.schema.createIndex('listing_drafts_seller').on('listing_drafts').columns(['seller', 'created_at', 'id']).execute();
  await db.schema.createIndex('listing_drafts_source').on('listing_drafts').columns(['asset_source', 'status']).execute();
  await db.schema.createIndex('listing_drafts_attach').on('listing_drafts').column('attach_txid').execute();
  await db.schema.createIndex('listing_drafts_outpoint').on('listing_drafts').column('asset_outpoint').execute();
  await db.schema.createIndex('listing_drafts_height').on('listing_drafts').column('confirmed_height').execute();
  await db.schema.createIndex('listing_drafts_spent').on('listing_drafts').column('spent_height').execute();

  await db.schema
    .createTable('listings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('draft_id', 'text', (c) => c.notNull())
    .addColumn('seller', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('quantity_raw', 'text', (c) => c.notNull())
    .addColumn('utxo_txid', 'text', (c) => c.notNull())
    .addColumn('utxo_vout', 'integer', (c) => c.notNull())
    .addColumn('utxo_outpoint', 'text', (c) => c.notNull())
    .addColumn('utxo_value_sats', 'bigint', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('end_reason', 'text')
    .addColumn('signed_psbt', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('activated_at', 'bigint')
    .addColumn('ended_at', 'bigint')
    .execute();
  // One live listing per asset outpoint (a partial unique index: both backends support it).
  await sql`create unique index listings_live_outpoint on listings (utxo_outpoint) where state in ('pending', 'active', 'reserved')`.execute(db);
  await db.schema.createIndex('listings_outpoint').on('listings').column('utxo_outpoint').execute();
  await db.schema.createIndex('listings_seller').on('listings').columns(['seller', 'state']).execute();
  await db.schema.createIndex('listings_asset_state').on('listings').columns(['asset', 'state', 'price_sats']).execute();
  await db.schema.createIndex('listings_state_expiry').on('listings').columns(['state', 'expires_at']).execute();

  await db.schema
    .createTable('owner_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('listing_id', 'text')
    .addColumn('asset', 'text')
    .addColumn('price_sats', 'bigint')
    .addColumn('txid', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('owner_events_feed').on('owner_events').columns(['address', 'at', 'event_id']).execute();
}
