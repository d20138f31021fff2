import type { Context } from '../context.js';
import type { Job } from '../jobs/runner.js';

/**
 * The cheap tip check (every TIP_CHECK_INTERVAL_MS, default 1 s): one `getbestblockhash`, and the
 * indexer runs only when the tip differs from the block it last caught up to. The long poll
 * (INDEXER_INTERVAL_MS) stays as the backstop; this is what brings a block to the market within
 * a second of the node having it.
 *
 * "Caught up" means the indexer's cursor IS the node's tip. While Counterparty Core has not yet
 * parsed the new block the indexer stops one short (it indexes only to the height both nodes
 * agree on: Indexer.runOnce), so the cursor is not the tip and the next check runs the indexer
 * again: the market follows Counterparty's readiness a second at a time, never reading a block's
 * events before Counterparty has them.
 */
export function tipCheckJob(ctx: Context): Job {
  let caughtUpTo: string | undefined;
  return {
    name: 'tip-check',
    role: 'indexer',
    intervalMs: ctx.config.TIP_CHECK_INTERVAL_MS,
    run: async (lease) => {
      const tip = await ctx.chain.bitcoin.getBestBlockHash();
      if (tip === caughtUpTo) return;
      const r = await ctx.indexer.run(lease);
      if (r.to >= r.from || r.rolledBack) ctx.logger.debug({ ...r, tip }, 'indexer pass (tip moved)');
      const cursor = await ctx.indexer.cursor();
      caughtUpTo = cursor?.hash === tip ? tip : undefined;
    },
  };
}
