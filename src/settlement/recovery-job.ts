import type { Context } from '../context.js';
import type { Job } from '../jobs/runner.js';

/**
 * Re-relays journaled settlements until the network knows them or they are
 * provably dead. Runs once at start (a crash between journal and broadcast is
 * finished by the next process) and then every RECOVERY_INTERVAL_MS.
 */
export function recoveryJob(ctx: Context): Job {
  return {
    name: 'recovery',
    role: 'recovery',
    intervalMs: ctx.config.RECOVERY_INTERVAL_MS,
    run: async (lease) => {
      const r = await ctx.journal.recover(200, lease);
      if (r.relayed || r.released) ctx.logger.info(r, 'recovery pass');
    },
  };
}
