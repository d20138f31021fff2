import type { SettlementJournal } from '../settlement/journal.js';
import type { Watcher } from './indexer.js';
import { spentOutpoints } from './spends.js';

/**
 * Confirms journaled settlements found in blocks, then releases the live ones whose inputs the
 * block spent elsewhere (journal.releaseSpentElsewhere); a reorg unconfirms them.
 */
export function settlementWatcher(journal: SettlementJournal): Watcher {
  return {
    name: 'settlements',
    onBlock: async (tx, b) => {
      const { block, seenAt } = b;
      // One lookup per chunk of the block's txids, not one per transaction.
      const txids = block.txs.map((t) => t.txid);
      for (let i = 0; i < txids.length; i += 500) {
        const ours = await tx.selectFrom('settlements').select('txid').where('txid', 'in', txids.slice(i, i + 500)).where('state', '!=', 'confirmed').execute();
        for (const { txid } of ours) await journal.markConfirmed(tx, txid, { height: block.height, hash: block.hash, seenAt });
      }
      await journal.releaseSpentElsewhere(tx, spentOutpoints(b), block.height);
    },
    rollback: async (tx, height) => {
      await journal.unconfirmFrom(tx, height);
    },
  };
}
