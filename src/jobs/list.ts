import type { Context } from '../context.js';
import type { Job } from './runner.js';
import { recoveryJob } from '../settlement/recovery-job.js';
import { indexerJob } from '../indexer/job.js';

/** The jobs one `serve` process runs. Each area adds its job here. */
export function backgroundJobs(ctx: Context): Job[] {
  return [recoveryJob(ctx), indexerJob(ctx)];
}
