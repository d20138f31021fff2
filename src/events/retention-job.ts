import type { Job } from '../jobs/runner.js';
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';
import { pruneLog } from './append.js';

/** Prunes the event log older than the retention, a batch per pass until none is left. */
export function eventLogRetentionJob(db: Db, clock: Clock, retentionDays: number, intervalMs = 3_600_000): Job {
  return {
    name: 'event-log-retention',
    intervalMs,
    async run() {
      const cutoff = Math.floor(clock.now() / 1000) - retentionDays * 86_400;
      while ((await pruneLog(db, cutoff)) > 0);
    },
  };
}
