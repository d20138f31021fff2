/**
 * Authorizations follow their asset outpoint: a spend of it that is no settlement of ours (the
 * holder moved or sold the unit elsewhere) retires every live authorization over it
 * (`asset_moved`). A spend of the funding slot retires the offer, and with it its
 * authorizations (offers/lifecycle.ts). Reorg: a retired authorization stays retired (the bidder
 * asks for a new one); the offers themselves are restored by the offers watcher.
 */
import type { Tx } from '../../store/db.js';
import type { IndexedBlock, Watcher } from '../../indexer/indexer.js';
import { spentOutpoints } from '../../indexer/spends.js';
import { retireAuthorizations } from './lifecycle.js';

async function retireMoved(tx: Tx, b: IndexedBlock, at: number): Promise<void> {
  const keys = [...spentOutpoints(b).keys()];
  for (let i = 0; i < keys.length; i += 500) {
    const part = keys.slice(i, i + 500);
    const live = await tx.selectFrom('exact_authorizations').selectAll().where('asset_outpoint', 'in', part).where('state', 'in', ['awaiting_bidder', 'active']).execute();
    const mine = live.length ? new Set((await tx.selectFrom('outpoint_claims').select('outpoint').where('outpoint', 'in', live.map((a) => a.asset_outpoint)).execute()).map((r) => r.outpoint)) : new Set<string>();
    const moved = live.filter((a) => !mine.has(a.asset_outpoint));
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
