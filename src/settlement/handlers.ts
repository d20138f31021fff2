import type { Context } from '../context.js';
import { nowSeconds } from '../clock.js';
import { ListingStore } from '../modules/listings/store.js';
import { attachHandlers } from '../modules/listings/attach-submit.js';
import { checkoutHandlers } from '../modules/checkout/handlers.js';

/**
 * Every area's reactions to its settlements, registered when the context is
 * built, so recovery and the indexer apply them whether or not this process
 * serves HTTP.
 */
export function registerSettlementHandlers(ctx: Pick<Context, 'journal' | 'store' | 'clock'>): void {
  ctx.journal.register('attach', attachHandlers(new ListingStore(ctx.store.db), () => nowSeconds(ctx.clock)));
  ctx.journal.register('checkout', checkoutHandlers(() => nowSeconds(ctx.clock)));
}
