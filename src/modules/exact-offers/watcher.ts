/**
 * Authorizations follow their asset outpoint: a confirmed spend of it retires every live
 * authorization over it (`asset_moved`) — the holder moved it, or a checkout or another accept
 * took it (a used authorization is its own settlement's, and not live). A spend of the funding slot retires the offer, and with it its
 * authorizations (offers/lifecycle.ts). Reorg: a retired authorization stays retired (the bidder
 * asks for a new one); the offers themselves are restored by the offers watcher.
 */
import type { Tx } from '../../store/db.js';
import type { IndexedBlock, Watcher } from '../../indexer/indexer.js';
import { spentOutpoints } from '../../indexer/spends.js';
import { retireAuthorizations } from '../offers/index.js';

async function retireMoved(tx: Tx, b: IndexedBlock, at: number): Promise<void> {
  const keys = [...spentOutpoints(b).keys()];
  for (let i = 0; i < keys.length; i += 500) {
    const part = keys.slice(i, i + 500);
    // Live (not used) authorizations: whatever spent their unit — the holder, a checkout, another
    // accept — it was not their own settlement, so they can no longer fill.
    const moved = await tx.selectFrom('exact_authorizations').selectAll().where('asset_outpoint', 'in', part).where('state', 'in', ['awaiting_bidder', 'active']).execute();
    if (moved.length) await retireAuthorizations(tx, moved, 'asset_moved', at);
  }
}

export function exactOffersWatcher(): Watcher {
  return {
    name: 'exact-offers',
    onBlock: async (tx, b) => retireMoved(tx, b, Math.floor(b.seenAt / 1000)),
    rollback: async () => {},
  };
}
