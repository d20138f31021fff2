/**
 * Collection offers follow the chain: a block that spends a funding input outside our own
 * settlements (the bidder's hard cancel, or any spend) invalidates the funding set; alternatives
 * past their market expiry expire; preflights never placed lapse and free their anchors. A
 * disconnected block restores the sets its spends invalidated (unless their anchor was swept
 * meanwhile).
 */
import type { Tx } from '../../store/db.js';
import type { IndexedBlock, Watcher } from '../../indexer/indexer.js';
import { spentOutpoints } from '../../indexer/spends.js';
import { expireAlternatives, invalidateFundingSet, lapseFundingSet, restoreFundingSets } from './lifecycle.js';

const CHUNK = 500;

async function invalidateSpent(tx: Tx, b: IndexedBlock, at: number): Promise<void> {
  const spent = spentOutpoints(b);
  const keys = [...spent.keys()];
  for (let i = 0; i < keys.length; i += CHUNK) {
    const part = keys.slice(i, i + CHUNK);
    const hits = await tx.selectFrom('policy_funding_inputs').selectAll().where('outpoint', 'in', part).execute();
    for (const h of hits) {
      const claim = await tx.selectFrom('outpoint_claims').select('settlement_id').where('outpoint', '=', h.outpoint).executeTakeFirst();
      if (claim) continue; // our own package: its settlement handlers settle it
      const set = await tx.selectFrom('policy_funding_sets').selectAll().where('id', '=', h.funding_set_id).executeTakeFirst();
      if (set) await invalidateFundingSet(tx, set, 'funding_spent', spent.get(h.outpoint)!, b.block.height, at);
    }
  }
}

export async function lapsePreflights(tx: Tx, at: number): Promise<void> {
  const due = await tx.selectFrom('policy_funding_sets').selectAll().where('state', '=', 'awaiting_signatures').where('preflight_expires_at', '<=', at).limit(500).execute();
  for (const s of due) await lapseFundingSet(tx, s, at);
}

export function policyOffersWatcher(): Watcher {
  return {
    name: 'policy-offers',
    onBlock: async (tx, b) => {
      const at = Math.floor(b.seenAt / 1000);
      await invalidateSpent(tx, b, at);
      await expireAlternatives(tx, at);
      await lapsePreflights(tx, at);
    },
    rollback: async (tx, height) => {
      const last = await tx.selectFrom('indexed_blocks').select('seen_at').orderBy('height', 'desc').limit(1).executeTakeFirst();
      await restoreFundingSets(tx, height, Math.floor(Number(last?.seen_at ?? Date.now()) / 1000));
    },
  };
}
