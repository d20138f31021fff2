/** The dispatcher's events from the ordered event log (src/events), rendered as the owner feed renders them. */
import type { Context } from '../../context.js';
import { AssetLongnames } from '../events/index.js';
import { EventsService } from '../events/index.js';
import type { WebhookEventSource } from './event-source.js';
import type { Db } from '../../store/db.js';
import { RETRACTED } from '../../events/append.js';

/**
 * The seqs among `entries` that restate an event: an earlier owner entry with the same event_id,
 * and no retraction of it between the two.
 */
async function restatements(db: Db, address: string, entries: { seq: number; event_id: string }[]): Promise<Set<number>> {
  const ids = [...new Set(entries.map((e) => e.event_id))];
  if (!ids.length) return new Set();
  const last = Math.max(...entries.map((e) => e.seq));
  const history = await db
    .selectFrom('event_log')
    .select(['seq', 'event_id', 'kind', 'retracts'])
    .where('feed', '=', 'owner')
    .where('address', '=', address)
    .where('seq', '<', last)
    .where((eb) => eb.or([eb('event_id', 'in', ids), eb('retracts', 'in', ids)]))
    .orderBy('seq')
    .execute();
  const out = new Set<number>();
  for (const e of entries) {
    // Walk the id's history up to this entry: a statement arms it, a retraction disarms it.
    let stated = false;
    for (const h of history) {
      if (Number(h.seq) >= e.seq) break;
      if (h.kind === RETRACTED && h.retracts === e.event_id) stated = false;
      else if (h.kind !== RETRACTED && h.event_id === e.event_id) stated = true;
    }
    if (stated) out.add(e.seq);
  }
  return out;
}

export function eventLogSource(ctx: Pick<Context, 'store' | 'chain'>): WebhookEventSource {
  const events = new EventsService(ctx.store.db, new AssetLongnames(ctx.chain.counterparty));
  return {
    async ownerEventsAfter(address, after, limit) {
      // Not the feed's position check: the log's retention is global, so a quiet owner's cursor
      // falls behind it with nothing of its own pruned. An endpoint cannot lose events to the
      // retention while it lives: it is disabled after WEBHOOK_DISABLE_AFTER_HOURS of failure,
      // which the configuration keeps below EVENT_LOG_RETENTION_DAYS.
      const rows = events.renderOwner(await events.log.page({ feed: 'owner', address }, after, limit));
      const restated = await restatements(ctx.store.db, address, rows.map((r) => ({ seq: r.seq, event_id: r.event_id })));
      return rows.map(({ seq, ...event }) => ({ seq, event_id: event.event_id, kind: event.kind, at: event.at, event, ...(restated.has(seq) ? { restatement: true } : {}) }));
    },
    head: async () => (await events.log.head()).last,
  };
}
