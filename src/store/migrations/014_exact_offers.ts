import type { Kysely } from 'kysely';

/** Exact offer authorizations (src/modules/offers/authorization-tables.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('exact_authorizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('offer_id', 'text', (c) => c.notNull())
    .addColumn('slot_id', 'text', (c) => c.notNull())
    .addColumn('bidder', 'text', (c) => c.notNull())
    .addColumn('seller', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('quantity_raw', 'text', (c) => c.notNull())
    .addColumn('asset_txid', 'text', (c) => c.notNull())
    .addColumn('asset_vout', 'integer', (c) => c.notNull())
    .addColumn('asset_outpoint', 'text', (c) => c.notNull())
    .addColumn('asset_value_sats', 'bigint', (c) => c.notNull())
    .addColumn('slot_outpoint', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('platform_fee_sats', 'bigint', (c) => c.notNull())
    .addColumn('prefunded_fee_sats', 'bigint', (c) => c.notNull())
    .addColumn('fee_rate', 'double precision', (c) => c.notNull())
    .addColumn('seller_proceeds_sats', 'bigint', (c) => c.notNull())
    .addColumn('delivery_mode', 'text', (c) => c.notNull())
    .addColumn('receive_address', 'text', (c) => c.notNull())
    .addColumn('offer_scope', 'text', (c) => c.notNull())
    .addColumn('psbt', 'text', (c) => c.notNull())
    .addColumn('parent_txid', 'text', (c) => c.notNull())
    .addColumn('parent_vsize', 'integer', (c) => c.notNull())
    .addColumn('bidder_signed_psbt', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('end_reason', 'text')
    .addColumn('settlement_id', 'text')
    .addColumn('claimed_listing_id', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('exact_auth_seller').on('exact_authorizations').columns(['seller', 'state', 'created_at', 'id']).execute();
  await db.schema.createIndex('exact_auth_bidder').on('exact_authorizations').columns(['bidder', 'created_at', 'id']).execute();
  await db.schema.createIndex('exact_auth_offer').on('exact_authorizations').columns(['offer_id', 'state']).execute();
  await db.schema.createIndex('exact_auth_asset').on('exact_authorizations').columns(['asset_outpoint', 'state']).execute();
  await db.schema.createIndex('exact_auth_slot').on('exact_authorizations').columns(['slot_outpoint', 'state']).execute();
}
