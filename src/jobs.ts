import type { Context } from './context.js';
import { startJob, type RunningJob } from './jobs/runner.js';
import type { Job } from './jobs/runner.js';
import { recoveryJob } from './settlement/recovery-job.js';
import { indexerJob } from './indexer/job.js';

export interface Jobs {
  byName: Map<string, RunningJob>;
  stop(): Promise<void>;
}

/** Starts every background job of the service (indexer, recovery, devnet mining) and wires /devnet/sync. */
export async function startJobs(ctx: Context): Promise<Jobs> {
  const byName = new Map<string, RunningJob>();
  // The service's own jobs, then every area's (from its manifest).
  const all: Job[] = [recoveryJob(ctx), indexerJob(ctx), ...ctx.areas.flatMap((a) => a.jobs?.(ctx) ?? [])];
  for (const job of all) byName.set(job.name, startJob(job, ctx.logger));
  // A crash between journal and broadcast is finished before anything else.
  await byName.get('recovery')?.kick();
  await byName.get('indexer')?.kick();
  // /devnet/sync goes through the running jobs so it never overlaps a timed run.
  ctx.sync = async () => {
    for (const name of ['recovery', 'indexer']) await byName.get(name)?.kick();
    await ctx.cache.clear();
  };
  return {
    byName,
    stop: async () => {
      for (const j of byName.values()) await j.stop();
    },
  };
}
