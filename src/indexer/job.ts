import type { Context } from '../context.js';
import type { Job } from '../jobs/runner.js';

/** The block follower as a background job (every INDEXER_INTERVAL_MS; /devnet/sync kicks it). */
export function indexerJob(ctx: Context): Job {
  return {
    name: 'indexer',
    role: 'indexer',
    intervalMs: ctx.config.INDEXER_INTERVAL_MS,
    run: async (lease) => {
      const r = await ctx.indexer.run(lease);
      if (r.to >= r.from || r.rolledBack) ctx.logger.debug(r, 'indexer pass');
    },
  };
}
