import type { Area } from '../../area.js';
import { eventLogRetentionJob } from '../../events/retention-job.js';
import { eventRoutes } from './routes.js';

/** The public feed and the owner feeds (derived from the rows, and in order from the event log), and the log's retention. */
export const eventsArea: Area = {
  name: 'events',
  routes: eventRoutes,
  // One instance prunes at a time (src/cluster/).
  jobs: (ctx) => [{ ...eventLogRetentionJob(ctx.store.db, ctx.clock, ctx.config.EVENT_LOG_RETENTION_DAYS), role: 'event-log-pruning' }],
};
