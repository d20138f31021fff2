import { sql, type Kysely } from 'kysely';

/** Bids: placements, funding slots and offers (src/modules/offers/tables.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('offer_placements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('bidder', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('platform_fee_sats', 'bigint', (c) => c.notNull())
    .addColumn('delivery_mode', 'text', (c) => c.notNull())
    .addColumn('receive_address', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('targets', 'text', (c) => c.notNull())
    .addColumn('funding_txid', 'text')
    .addColumn('request_sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('offer_placements_bidder').on('offer_placements').columns(['bidder', 'created_at', 'id']).execute();
  await db.schema.createIndex('offer_placements_request').on('offer_placements').columns(['bidder', 'request_sha256']).execute();

  await db.schema
    .createTable('offer_slots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('placement_id', 'text', (c) => c.notNull())
    .addColumn('bidder', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('vout', 'integer', (c) => c.notNull())
    .addColumn('outpoint', 'text', (c) => c.notNull())
    .addColumn('value_sats', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('spent_txid', 'text')
    .addColumn('spent_height', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Never two owners of one slot: at most one open slot per outpoint, whoever races.
  await db.schema.createIndex('offer_slots_open_outpoint').unique().on('offer_slots').column('outpoint').where(sql.ref('state'), '=', 'open').execute();
  await db.schema.createIndex('offer_slots_outpoint').on('offer_slots').columns(['outpoint', 'state']).execute();
  await db.schema.createIndex('offer_slots_placement').on('offer_slots').column('placement_id').execute();
  await db.schema.createIndex('offer_slots_spent_height').on('offer_slots').column('spent_height').execute();

  await db.schema
    .createTable('offers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('placement_id', 'text', (c) => c.notNull())
    .addColumn('slot_id', 'text', (c) => c.notNull())
    .addColumn('target_index', 'integer', (c) => c.notNull())
    .addColumn('bidder', 'text', (c) => c.notNull())
    .addColumn('bid_txid', 'text', (c) => c.notNull())
    .addColumn('bid_vout', 'integer', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('platform_fee_sats', 'bigint', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('asset', 'text')
    .addColumn('collection', 'text')
    .addColumn('max_supply_units', 'bigint')
    .addColumn('min_supply_units', 'bigint')
    .addColumn('issued_year', 'integer')
    .addColumn('series', 'integer')
    .addColumn('artist', 'text')
    .addColumn('level_key', 'text', (c) => c.notNull())
    .addColumn('target_txid', 'text')
    .addColumn('target_vout', 'integer')
    .addColumn('delivery_mode', 'text', (c) => c.notNull())
    .addColumn('receive_address', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('end_reason', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .execute();
  await db.schema.createIndex('offers_slot').on('offers').columns(['slot_id', 'state']).execute();
  await db.schema.createIndex('offers_placement').on('offers').column('placement_id').execute();
  await db.schema.createIndex('offers_bidder').on('offers').columns(['bidder', 'created_at', 'id']).execute();
  await db.schema.createIndex('offers_bidder_expiring').on('offers').columns(['bidder', 'state', 'expires_at']).execute();
  await db.schema.createIndex('offers_collection_live').on('offers').columns(['collection', 'state', 'price_sats']).execute();
  await db.schema.createIndex('offers_asset_live').on('offers').columns(['asset', 'state', 'price_sats']).execute();
  // The public feed's offer branches walk these in time order.
  await db.schema.createIndex('offers_created').on('offers').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('offers_state_expires').on('offers').columns(['state', 'expires_at']).execute();
  await db.schema.createIndex('offers_ended').on('offers').columns(['ended_at', 'id']).execute();
}
