/** The dispatcher's events from the ordered event log (src/events), rendered as the owner feed renders them. */
import type { Context } from '../../context.js';
import { AssetLongnames } from '../events/index.js';
import { EventsService } from '../events/index.js';
import type { WebhookEventSource } from './event-source.js';

export function eventLogSource(ctx: Pick<Context, 'store' | 'chain'>): WebhookEventSource {
  const events = new EventsService(ctx.store.db, new AssetLongnames(ctx.chain.counterparty));
  return {
    async ownerEventsAfter(address, after, limit) {
      // Not the feed's position check: the log's retention is global, so a quiet owner's cursor
      // falls behind it with nothing of its own pruned. An endpoint cannot lose events to the
      // retention while it lives: it is disabled after WEBHOOK_DISABLE_AFTER_HOURS of failure,
      // which the configuration keeps below EVENT_LOG_RETENTION_DAYS.
      const rows = events.renderOwner(await events.log.page({ feed: 'owner', address }, after, limit));
      // Every entry, a restated event too (same event_id, higher seq): the receiver takes it as news.
      return rows.map(({ seq, ...event }) => ({ seq, event_id: event.event_id, kind: event.kind, at: event.at, event }));
    },
    head: async () => (await events.log.head()).last,
  };
}
