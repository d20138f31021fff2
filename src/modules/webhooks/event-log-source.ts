/** The dispatcher's events from the ordered event log (src/events), rendered as the owner feed renders them. */
import type { Context } from '../../context.js';
import { AssetLongnames } from '../events/asset-longnames.js';
import { EventsService } from '../events/service.js';
import type { WebhookEventSource } from './event-source.js';

export function eventLogSource(ctx: Pick<Context, 'store' | 'chain'>): WebhookEventSource {
  const events = new EventsService(ctx.store.db, new AssetLongnames(ctx.chain.counterparty));
  return {
    async ownerEventsAfter(address, after, limit) {
      // A position older than the retention throws ResyncRequired: the dispatcher logs it for that endpoint only.
      const { rows } = await events.ownerAfter(address, after, limit);
      return rows.map(({ seq, ...event }) => ({ seq, event_id: event.event_id, kind: event.kind, at: event.at, event }));
    },
    head: async () => (await events.log.head()).last,
  };
}
