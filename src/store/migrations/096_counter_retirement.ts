import type { Kysely } from 'kysely';

/**
 * Migration 096: a counter ends when its unit moves. A confirmed spend of the counter's asset
 * outpoint retires it (src/modules/counters/watcher.ts); the block's height and the spending
 * txid are kept so a disconnected block can restore exactly the counters it retired. Both backends.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('offer_counters').addColumn('retired_txid', 'text').execute();
  await db.schema.alterTable('offer_counters').addColumn('retired_height', 'integer').execute();
}
