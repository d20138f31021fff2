import type { Kysely } from 'kysely';

/**
 * Who holds a collection-offer anchor through an unplaced preflight (src/modules/policy-offers/holds.ts):
 * the requesting IP's bucket beside the bidder, so the holds are bounded per address and per IP.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('policy_funding_sets').addColumn('preflight_ip', 'text').execute();
  await db.schema.createIndex('policy_funding_sets_preflight_ip').on('policy_funding_sets').columns(['preflight_ip', 'state']).execute();
}
