import type { Context } from './context.js';
import { startJob, type RunningJob } from './jobs/runner.js';
import type { Job } from './jobs/runner.js';
import type { Lease } from './cluster/fence.js';
import { FencedOut } from './cluster/fence.js';
import { recoveryJob } from './settlement/recovery-job.js';
import { indexerJob } from './indexer/job.js';
import { tipCheckJob } from './indexer/tip-check.js';

export interface Jobs {
  byName: Map<string, RunningJob>;
  /** Stops every job, then gives every leader role up so another instance takes over at once. */
  stop(): Promise<void>;
}

/**
 * A singleton's run under its lease. A run fenced out gives the role up (another instance took
 * it): a handover, not a failure, so it is a warning and no back-off (the job stops here when the
 * role's loss reaches startJobs, and a new lease starts a new job).
 */
export function leased(ctx: Pick<Context, 'leadership' | 'logger'>, job: Job, lease: Lease): Job {
  return {
    ...job,
    run: async () => {
      try {
        await job.run(lease);
      } catch (e) {
        if (!(e instanceof FencedOut)) throw e;
        ctx.logger.warn({ job: job.name, role: lease.role, epoch: lease.epoch }, 'job run fenced out: another instance leads its role now; giving it up');
        void ctx.leadership.resign(lease.role);
      }
    },
  };
}

/**
 * Starts every background job of the service: the ones every instance runs at once, and the
 * singletons (recovery, the indexer, …) on this instance while it leads their role
 * (ctx.leadership: always on SQLite, by election on PostgreSQL). Wires /devnet/sync and the
 * node's block notices (ctx.chain.blocks) where configured.
 */
export async function startJobs(ctx: Context): Promise<Jobs> {
  const byName = new Map<string, RunningJob>();
  const stopping = new Set<Promise<void>>();
  let closing = false;
  // The service's own jobs, then every area's (from its manifest).
  // The tip check (TIP_CHECK_INTERVAL_MS=0 turns it off: the long poll alone).
  const tipCheck = ctx.config.TIP_CHECK_INTERVAL_MS > 0 ? [tipCheckJob(ctx)] : [];
  const all: Job[] = [recoveryJob(ctx), indexerJob(ctx), ...tipCheck, ...ctx.areas.flatMap((a) => a.jobs?.(ctx) ?? [])];
  for (const job of all.filter((j) => !j.role)) byName.set(job.name, startJob(job, ctx.logger));
  const singletons = all.filter((j) => j.role);
  await ctx.leadership.start([...new Set(singletons.map((j) => j.role!))], async (role, lease) => {
    const mine = singletons.filter((j) => j.role === role);
    if (!lease) {
      // Lost: no new run starts from now; a run in flight is fenced by its lease.
      for (const j of mine) {
        const running = byName.get(j.name);
        byName.delete(j.name);
        if (!running) continue;
        const p = running.stop().finally(() => stopping.delete(p));
        stopping.add(p);
      }
      return;
    }
    // A role granted while this instance shuts down is left for the next instance to take.
    if (closing) return;
    for (const j of mine) byName.set(j.name, startJob(leased(ctx, j, lease), ctx.logger));
    // A crash between journal and broadcast is finished before anything else; the indexer catches up at once.
    for (const j of mine) if (j.name === 'recovery' || j.name === 'indexer') await byName.get(j.name)?.kick();
  });
  // Where configured, the node's own block notices run the tip check at once (on the instance
  // leading the indexer; elsewhere there is no such job and a notice does nothing). The timed
  // check stays: a notice can be lost. One kick at a time; a notice during a kick asks for one more.
  const blocks = ctx.chain.blocks;
  let kicking = false;
  let again = false;
  const onBlock = async () => {
    if (kicking) {
      again = true;
      return;
    }
    kicking = true;
    try {
      do {
        again = false;
        await (byName.get('tip-check') ?? byName.get('indexer'))?.kick();
      } while (again && !closing);
    } finally {
      kicking = false;
    }
  };
  if (blocks) await blocks.start(() => void onBlock());
  // /devnet/sync goes through the running jobs so it never overlaps a timed run.
  ctx.sync = async () => {
    for (const name of ['recovery', 'indexer']) await byName.get(name)?.kick();
    await ctx.cache.clear();
  };
  return {
    byName,
    stop: async () => {
      closing = true;
      await blocks?.close();
      for (const j of byName.values()) await j.stop();
      await Promise.all([...stopping]);
      await ctx.leadership.stop();
    },
  };
}
