import type { FastifyBaseLogger } from 'fastify';
import type { Lease } from '../cluster/fence.js';
import type { LeaderRole } from '../cluster/roles.js';

/** A background job: an explicit object, started from the serve command only (cli/main.ts via jobs.ts). */
export interface Job {
  name: string;
  intervalMs: number;
  /**
   * Set for a singleton: it runs only on the instance that leads this role, and each run gets
   * that instance's lease, whose `check` fences the run's writes. Unset: it runs on every instance.
   */
  role?: LeaderRole;
  run(lease?: Lease): Promise<void>;
}

export interface RunningJob {
  /** Runs the job now (after any run in progress) and resolves when that run ends. */
  kick(): Promise<void>;
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 5 * 60_000;
/** Consecutive failed runs after which each is logged as an error rather than a warning… */
export const ERROR_AFTER_FAILURES = 3;
/** …once the job has been failing this long (from the first failure of the streak). */
export const ERROR_AFTER_MS = 60_000;

/**
 * Self-scheduling loop: the next run is planned only after the current one
 * ends, so runs never overlap; errors back off exponentially up to 5 minutes.
 * `kick` lets /devnet/sync run a job on demand without racing the timer.
 */
export function startJob(job: Job, log: FastifyBaseLogger, opts: { now?: () => number } = {}): RunningJob {
  const now = opts.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let failures = 0;
  let failingSince = 0;

  const runOnce = async (): Promise<void> => {
    try {
      await job.run();
      failures = 0;
    } catch (e) {
      if (failures++ === 0) failingSince = now();
      // A run cut by a dependency's blip (a database failover, a node restart, Counterparty Core
      // catching up for a few seconds) is retried with back-off and usually passes: a warning. A
      // job still failing on its third run in a row and a minute on is an operator's problem: an
      // error, every run until one passes. By count alone, a job run every second logged errors
      // for a 7-second blip (sim day 9133: Counterparty not ready under the collection-offer upkeep).
      const level = failures >= ERROR_AFTER_FAILURES && now() - failingSince >= ERROR_AFTER_MS ? 'error' : 'warn';
      log[level]({ job: job.name, err: e instanceof Error ? e.message : String(e), failures }, 'job run failed');
    }
  };

  const schedule = () => {
    if (stopped) return;
    const delay = failures ? Math.min(job.intervalMs * 2 ** failures, MAX_BACKOFF_MS) : job.intervalMs;
    timer = setTimeout(() => void tick(), delay);
    timer.unref?.();
  };

  const tick = async () => {
    timer = undefined;
    if (running) await running;
    running = runOnce().finally(() => {
      running = undefined;
    });
    await running;
    if (!timer) schedule();
  };

  schedule();

  return {
    kick: async () => {
      while (running) await running;
      if (timer) clearTimeout(timer);
      timer = undefined;
      running = runOnce().finally(() => {
        running = undefined;
      });
      await running;
      if (!timer) schedule();
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (running) await running;
    },
  };
}
