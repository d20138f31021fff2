/**
 * Which live settlements a block spent elsewhere: a claimed input of theirs spent by a transaction
 * that is none of their own members. Such a settlement can never land (journal.releaseSpentElsewhere).
 */
import type { Tx } from '../store/db.js';
import { LIVE } from './tables.js';

/** `spent`: outpoint → spending txid, for one block. Each settlement once, with the first such outpoint. */
export async function spentElsewhere(tx: Tx, spent: ReadonlyMap<string, string>): Promise<Array<{ id: string; outpoint: string; spender: string }>> {
  const keys = [...spent.keys()];
  const found = new Map<string, { id: string; outpoint: string; spender: string }>();
  for (let i = 0; i < keys.length; i += 500) {
    const claims = await tx
      .selectFrom('outpoint_claims')
      .innerJoin('settlements', 'settlements.id', 'outpoint_claims.settlement_id')
      .select(['outpoint_claims.outpoint', 'settlements.id'])
      .where('outpoint_claims.outpoint', 'in', keys.slice(i, i + 500))
      .where('settlements.state', 'in', LIVE)
      .execute();
    if (!claims.length) continue;
    const members = await tx.selectFrom('settlement_members').select(['settlement_id', 'txid']).where('settlement_id', 'in', [...new Set(claims.map((c) => c.id))]).execute();
    const own = new Set(members.map((m) => `${m.settlement_id} ${m.txid}`));
    for (const c of claims) {
      const spender = spent.get(c.outpoint)!;
      if (!own.has(`${c.id} ${spender}`) && !found.has(c.id)) found.set(c.id, { id: c.id, outpoint: c.outpoint, spender });
    }
  }
  return [...found.values()];
}
