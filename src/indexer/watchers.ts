import type { Context } from '../context.js';
import type { Watcher } from './indexer.js';
import { settlementWatcher } from './settlement-watcher.js';
import { listingsWatcher } from '../modules/listings/watcher.js';

/** Everything that follows the chain, in the order it runs for each block (rollback runs in reverse). */
export function marketWatchers(ctx: Pick<Context, 'journal' | 'chain'>): Watcher[] {
  return [settlementWatcher(ctx.journal), listingsWatcher(ctx.chain)];
}
