import type { Kysely } from 'kysely';

/**
 * Migration 097: the inputs of bid funding transactions placed before they confirmed
 * (src/modules/offers/funding-inputs.ts). A block that spends one of them by another transaction
 * replaced the funding: its slots can never exist, and the offers over them end. Both backends.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('offer_funding_inputs')
    .addColumn('funding_txid', 'text', (c) => c.notNull())
    .addColumn('outpoint', 'text', (c) => c.notNull())
    .addColumn('settled_height', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('offer_funding_inputs_pk', ['funding_txid', 'outpoint'])
    .execute();
  await db.schema.createIndex('offer_funding_inputs_settled').on('offer_funding_inputs').column('settled_height').execute();
}
