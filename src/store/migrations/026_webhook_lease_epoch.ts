import type { Kysely } from 'kysely';

/**
 * The leader epoch of the dispatcher holding an endpoint's lease (src/modules/webhooks/tables.ts):
 * a new leader of the webhook role (a higher epoch) takes over a dead leader's leases at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('lease_epoch', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}
