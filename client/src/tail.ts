/**
 * A live tail of a feed (the public feed, or an owner's), oldest first, built on the contract's
 * paging rules: every interval the feed is read from its head back to the newest second already
 * seen — included, because several events share a second and a feed orders ties by id, so a new
 * event of that second can sort below old ones — and events are deduplicated on `event_id`.
 * A burst between two polls is followed through as many pages as it takes (bounded by
 * `maxCatchUpPages`). The seen set is bounded.
 */
export interface FeedEvent {
  event_id: string;
  at: number;
  kind: string;
  [k: string]: unknown;
}

export interface TailOptions {
  /** Reads one page, newest first. */
  read: (cursor: string | undefined) => Promise<{ result: FeedEvent[]; next_cursor: string | null }>;
  intervalMs?: number;
  /** Older pages followed at most per poll when the head page is all new. */
  maxCatchUpPages?: number;
  /** Start from now (default: deliver the current head page too). */
  fromNow?: boolean;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
}

const SEEN_MAX = 10_000;

export async function* tail(o: TailOptions): AsyncGenerator<FeedEvent> {
  const seen = new Set<string>();
  const remember = (id: string) => {
    seen.add(id);
    if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value as string);
  };
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let first = true;
  /** The newest `at` seen: each poll re-reads down to this second, included. */
  let highAt = -Infinity;
  while (!o.signal?.aborted) {
    const fresh: FeedEvent[] = [];
    let cursor: string | undefined;
    for (let page = 0; page <= (o.maxCatchUpPages ?? 10); page++) {
      const r = await o.read(cursor);
      fresh.push(...r.result.filter((e) => !seen.has(e.event_id)));
      const oldest = r.result.at(-1);
      // The first poll sets the high-water second from the head of the feed.
      if (first && page === 0) highAt = Math.max(highAt, ...r.result.map((e) => e.at));
      // Down to the high-water second, included, and no further.
      if (!oldest || oldest.at < highAt || !r.next_cursor) break;
      cursor = r.next_cursor;
    }
    for (const e of fresh) highAt = Math.max(highAt, e.at);
    if (first && o.fromNow) for (const e of fresh) remember(e.event_id);
    else {
      // Oldest first: newest-first pages reversed (events of one second come in the feed's tie order, by id).
      for (const e of fresh.reverse()) {
        if (seen.has(e.event_id)) continue;
        remember(e.event_id);
        yield e;
      }
    }
    first = false;
    if (o.signal?.aborted) return;
    await sleep(o.intervalMs ?? 5_000);
  }
}
