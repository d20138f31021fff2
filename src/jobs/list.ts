import type { Context } from '../context.js';
import type { Job } from './runner.js';

/** The jobs one `serve` process runs. Each area adds its job here. */
export function backgroundJobs(_ctx: Context): Job[] {
  return [];
}
