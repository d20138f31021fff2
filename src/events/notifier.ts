/**
 * The port that wakes the stream when the event log grows. A notification carries nothing the
 * reader trusts: it only says "read the log now" (the log itself is the truth, read after the
 * reader's own position), so a lost or duplicated notification costs latency, never an event.
 *
 * - InProcessNotifier: commits in this process (append.ts `onAppended`). One instance only.
 * - PgNotifier: PostgreSQL LISTEN on the channel the counter's trigger NOTIFYs on commit
 *   (migration 020), so a stream on instance A hears a commit of instance B at once.
 */
import type { Store } from '../store/db.js';
import type { Unlisten } from '../store/pg-listen.js';
import { onAppended } from './append.js';

export interface EventNotifier {
  /** Calls `fn` whenever events may have been committed (with the highest seq when known). */
  subscribe(fn: (last: number | null) => void): () => void;
  close(): Promise<void>;
}

export class InProcessNotifier implements EventNotifier {
  constructor(private readonly store: Store) {}

  subscribe(fn: (last: number | null) => void): () => void {
    return onAppended(this.store.db, fn);
  }

  async close(): Promise<void> {}
}

/** The channel of migration 020's trigger; payload `schema:last`. */
export const EVENT_LOG_CHANNEL = 'market_event_log';

export class PgNotifier implements EventNotifier {
  private readonly fns = new Set<(last: number | null) => void>();
  private unlisten: Unlisten | undefined;

  constructor(private readonly store: Store) {
    if (!store.listen || !store.schema) throw new Error('PgNotifier needs a PostgreSQL store');
  }

  /** The LISTEN connection opens with the first subscriber (an instance nobody streams from holds none). */
  subscribe(fn: (last: number | null) => void): () => void {
    if (!this.unlisten) {
      const prefix = `${this.store.schema}:`;
      this.unlisten = this.store.listen!(
        EVENT_LOG_CHANNEL,
        (payload) => {
          if (payload.startsWith(prefix)) this.emit(Number(payload.slice(prefix.length)));
        },
        () => this.emit(null),
      );
    }
    this.fns.add(fn);
    return () => this.fns.delete(fn);
  }

  async close(): Promise<void> {
    this.fns.clear();
    await this.unlisten?.();
    this.unlisten = undefined;
  }

  private emit(last: number | null): void {
    for (const fn of this.fns) fn(last);
  }
}

/** PostgreSQL LISTEN/NOTIFY when the store is PostgreSQL (several instances), else in process. */
export const notifierFor = (store: Store): EventNotifier => (store.dialect === 'postgres' ? new PgNotifier(store) : new InProcessNotifier(store));
