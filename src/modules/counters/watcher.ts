/**
 * Counters follow their unit: a confirmed spend of a counter's asset outpoint retires it, so the
 * bidder's inbox stops offering a unit that can no longer be taken. A spend by the market's own
 * settlement is hidden at once at read time (routes.ts: the unit's outpoint is claimed); this
 * watcher covers every spend, the holder's own included. A disconnected block restores the
 * counters its spends retired (the same spend is then seen again when it is mined anew).
 */
import type { Watcher } from '../../indexer/indexer.js';
import { spentOutpoints } from '../../indexer/spends.js';
import { restoreCounters, retireMovedCounters } from '../offers/index.js';

export function countersWatcher(): Watcher {
  return {
    name: 'counters',
    onBlock: async (tx, b) => retireMovedCounters(tx, spentOutpoints(b), b.block.height, Math.floor(b.seenAt / 1000)),
    rollback: async (tx, height) => {
      // The market's time is the chain's as indexed (the offers watcher's rule), not this host's clock.
      const last = await tx.selectFrom('indexed_blocks').select('seen_at').orderBy('height', 'desc').limit(1).executeTakeFirst();
      await restoreCounters(tx, height, Math.floor(Number(last?.seen_at ?? Date.now()) / 1000));
    },
  };
}
