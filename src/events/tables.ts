/** The ordered event log (migration 020; src/events/append.ts writes it, log-reader.ts reads it). */
export interface EventLogTables {
  event_log: {
    /** Strictly increasing in commit order; the position `after=`, `Last-Event-ID` and webhooks resume from. */
    seq: number;
    /** The feeds' id of the event (stable per kind and subject); a retraction has an id of its own. */
    event_id: string;
    feed: 'public' | 'owner';
    /** The owner feed's address; null on the public feed. */
    address: string | null;
    /** The feed's kind, or `event_retracted`. */
    kind: string;
    at: number;
    /** On `event_retracted`: the event_id it withdraws. */
    retracts: string | null;
    /** The row the feed shows for the event (the feed's own row shape, JSON), resolved to the wire shape by the reader. */
    row_json: string;
    /** When the appending transaction committed (unix s); the retention job prunes by it. */
    recorded_at: number;
  };
  event_seq: { id: number; last: number; pruned_through: number };
}

declare module '../store/schema.js' {
  interface DatabaseSchema extends EventLogTables {}
}
