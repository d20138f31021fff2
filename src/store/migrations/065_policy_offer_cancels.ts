import { sql, type Kysely } from 'kysely';

/**
 * A soft cancel names one collection-offer alternative (src/modules/policy-offers/cancel.ts): the
 * market signer's answer (recorded_at, receipt) is kept on the alternative it refused. Sets
 * cancelled whole before this had every live alternative cancelled with them: those alternatives
 * carry the set's answer.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('policy_offers').addColumn('cancel_json', 'text').execute();
  await sql`UPDATE policy_offers SET cancel_json = (SELECT s.cancel_json FROM policy_funding_sets s WHERE s.id = policy_offers.funding_set_id)
    WHERE state = 'cancelled' AND funding_set_id IN (SELECT id FROM policy_funding_sets WHERE cancel_json IS NOT NULL)`.execute(db);
  await db.schema.createIndex('policy_offers_cancelled').on('policy_offers').columns(['state', 'ended_at']).execute();
}
