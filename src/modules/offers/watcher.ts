/**
 * The bid side follows the chain: every spend of a funding slot ends the offers over it.
 * A spend by one of our settlements is that settlement's to settle (the fill flows); the spend
 * by an accept's parent is where the market sees the slot spent, so the bidder's offer_accepted
 * appears then (spec: owner feed rule 8); any other
 * spend (the bidder moved the money) retires every active offer over the slot (reason invalid).
 * Active offers past their market expiry are ended `expired`. A disconnected block restores the
 * offers its spends retired (lifecycle.unspendSlots); after 3 confirmations nothing is kept to undo.
 * A funding replaced before it confirmed ends its slots too (funding-inputs.ts).
 */
import type { Tx } from '../../store/db.js';
import type { IndexedBlock, Watcher } from '../../indexer/indexer.js';
import { spentOutpoints } from '../../indexer/spends.js';
import { endOffers, seeAcceptSpend, spendSlot, unspendSlots } from './lifecycle.js';
import { unsettleFundingInputs, watchFundingInputs } from './funding-inputs.js';

const CHUNK = 500;

async function retireSpent(tx: Tx, b: IndexedBlock, at: number): Promise<void> {
  const spent = spentOutpoints(b);
  const keys = [...spent.keys()];
  for (let i = 0; i < keys.length; i += CHUNK) {
    const part = keys.slice(i, i + CHUNK);
    const slots = await tx.selectFrom('offer_slots').selectAll().where('outpoint', 'in', part).where('state', 'in', ['open', 'closed']).execute();
    for (const s of slots) {
      const claimed = await tx.selectFrom('outpoint_claims').select('settlement_id').where('outpoint', '=', s.outpoint).executeTakeFirst();
      if (claimed) continue;
      await spendSlot(tx, s, spent.get(s.outpoint)!, b.block.height, at);
    }
  }
}

/** Slots our accepts spent, found spent in this block by the accept's own parent. */
async function seeAccepted(tx: Tx, b: IndexedBlock, at: number): Promise<void> {
  const spent = spentOutpoints(b);
  const keys = [...spent.keys()];
  for (let i = 0; i < keys.length; i += CHUNK) {
    const slots = await tx.selectFrom('offer_slots').selectAll().where('outpoint', 'in', keys.slice(i, i + CHUNK)).where('state', '=', 'spent').where('spent_height', 'is', null).execute();
    for (const s of slots) if (spent.get(s.outpoint) === s.spent_txid) await seeAcceptSpend(tx, s, s.spent_txid, b.block.height, at);
  }
}

async function expireOffers(tx: Tx, at: number): Promise<void> {
  const due = await tx.selectFrom('offers').selectAll().where('state', '=', 'active').where('expires_at', '<=', at).limit(1000).execute();
  if (due.length) await endOffers(tx, due, 'expired', at);
}

export function offersWatcher(): Watcher {
  return {
    name: 'offers',
    onBlock: async (tx, b) => {
      const at = Math.floor(b.seenAt / 1000);
      await retireSpent(tx, b, at);
      await watchFundingInputs(tx, b, at);
      await seeAccepted(tx, b, at);
      await expireOffers(tx, at);
    },
    rollback: async (tx, height) => {
      const last = await tx.selectFrom('indexed_blocks').select('seen_at').orderBy('height', 'desc').limit(1).executeTakeFirst();
      await unspendSlots(tx, height, Math.floor(Number(last?.seen_at ?? Date.now()) / 1000));
      await unsettleFundingInputs(tx, height);
    },
  };
}
