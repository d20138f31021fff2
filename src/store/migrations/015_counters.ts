import type { Kysely } from 'kysely';

/** Sellers' counters to bids (src/modules/offers/counter-tables.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('offer_counters')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('offer_id', 'text', (c) => c.notNull())
    .addColumn('bidder', 'text', (c) => c.notNull())
    .addColumn('seller', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('asset_txid', 'text', (c) => c.notNull())
    .addColumn('asset_vout', 'integer', (c) => c.notNull())
    .addColumn('asset_outpoint', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('offer_price_sats', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('taken_by', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('offer_counters_bidder').on('offer_counters').columns(['bidder', 'state', 'created_at', 'id']).execute();
  await db.schema.createIndex('offer_counters_outpoint').on('offer_counters').columns(['asset_outpoint', 'bidder', 'state']).execute();
  await db.schema.createIndex('offer_counters_offer').on('offer_counters').columns(['offer_id', 'seller', 'state']).execute();
}
