import type { Context } from '../context.js';
import type { Watcher } from './indexer.js';
import { settlementWatcher } from './settlement-watcher.js';
import { listingsWatcher } from '../modules/listings/watcher.js';
import { balanceViewWatcher } from '../modules/market/balance-view-watcher.js';

/** Everything that follows the chain, in the order it runs for each block (rollback runs in reverse). */
export function marketWatchers(ctx: Pick<Context, 'journal' | 'store' | 'chain' | 'logger'>): Watcher[] {
  return [settlementWatcher(ctx.journal), listingsWatcher(ctx.chain), balanceViewWatcher(ctx.store.db, ctx.chain.counterparty, ctx.logger)];
}
