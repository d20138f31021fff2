/**
 * A live tail of a feed (the public feed, or an owner's), oldest first, built on the feed's
 * ordered log (`after=<seq>`): entries come in commit order, gap-free and each once, so nothing
 * is missed between two polls and a change to an event already seen comes again — a sale's
 * `confirmed_at` once its block is seen (the confirmation), a repriced ask, an
 * `event_retracted` when a reorg or a released settlement withdraws one. Apply entries by
 * `event_id`: the later one wins.
 *
 * The first read starts from the newest entries (the public feed's `tail=true`; the owner's log
 * read through to its end); then the log is read after the last seq every `intervalMs`, and at
 * once again while a read comes back full (a burst is followed through). A position the market
 * pruned (410 resync_required) restarts from the newest entries. For pushes rather than polls,
 * use the stream (`stream()` / `addressStream()`), which carries the same entries.
 */
export interface FeedEvent {
  event_id: string;
  at: number;
  kind: string;
  [k: string]: unknown;
}

/** One entry of the ordered log: the event as the feed showed it when it was recorded, with its seq. */
export interface LogEntry extends FeedEvent {
  seq: number;
}

/** One read of the ordered log, oldest first. */
export interface LogRead {
  result: LogEntry[];
  next_after: number;
}

export interface TailOptions {
  /** `after` undefined: the newest entries (where a reader from now starts); else the entries after that seq. */
  read: (after: number | undefined) => Promise<LogRead>;
  /** Between two reads that found the log's end (default 1,000 ms). */
  intervalMs?: number;
  /** Entries per read (default 100, the most the market gives). */
  limit?: number;
  /** Start from now (default: deliver the newest entries first read too). */
  fromNow?: boolean;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
}

export const TAIL_PAGE = 100;

/** The log position was pruned: read from the newest entries again. */
const resync = (e: unknown) => (e as { code?: string } | null)?.code === 'resync_required';

export async function* tail(o: TailOptions): AsyncGenerator<LogEntry> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const limit = o.limit ?? TAIL_PAGE;
  let after: number | undefined;
  let first = true;
  while (!o.signal?.aborted) {
    let page: LogRead;
    try {
      page = await o.read(after);
    } catch (e) {
      if (after === undefined || !resync(e)) throw e;
      after = undefined;
      continue;
    }
    const starting = after === undefined;
    after = Math.max(after ?? 0, page.next_after);
    if (!(starting && first && o.fromNow)) {
      for (const e of page.result) {
        if (o.signal?.aborted) return;
        yield e;
      }
    }
    first = false;
    // A full read may have more behind it: read on at once.
    if (!starting && page.result.length >= limit) continue;
    if (o.signal?.aborted) return;
    await sleep(o.intervalMs ?? 1_000);
  }
}
