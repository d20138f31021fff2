/**
 * What the dispatcher reads: an owner's events in the ordered event log, ascending by `seq`,
 * served only up to the log's commit-safe watermark (an event committed later never gets a
 * lower number than one already read), so a cursor that moves past an event never skips one.
 */
export interface LogEvent {
  seq: number;
  event_id: string;
  kind: string;
  /** unix seconds: when the market observed the event */
  at: number;
  /** The event as the owner feed shows it. */
  event: Record<string, unknown>;
}

export interface WebhookEventSource {
  /** `address`'s owner events with seq > `after`, ascending, at most `limit`. */
  ownerEventsAfter(address: string, after: number, limit: number): Promise<LogEvent[]>;
  /** The highest seq a reader may see now: where a new endpoint starts. */
  head(): Promise<number>;
}

/** The body of a delivery: Standard Webhooks' `{type, timestamp, data}`, with the log position. */
export function payloadOf(address: string, ev: LogEvent): string {
  return JSON.stringify({ type: ev.kind, timestamp: new Date(ev.at * 1000).toISOString(), seq: ev.seq, address, data: { ...ev.event, event_id: ev.event_id, kind: ev.kind, at: ev.at } });
}
