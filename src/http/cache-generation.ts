/**
 * Which cached public reads of market state are still true: fresh reads after a trade.
 *
 * Every state change of the market (a claim or sale, a delist, a reprice, an offer placed or
 * ended, …) appends to the one ordered event log in its own transaction (src/events/append.ts),
 * and every instance hears each commit at once (the EventNotifier: in process, or PostgreSQL
 * LISTEN on the log's NOTIFY). The generation is the highest log position this instance has
 * heard of, plus the block the indexer last processed (a block changes holders and unconfirmed
 * listings without always logging an event). A cached answer records the generation its request
 * saw BEFORE it read the store; it may be served only while that generation is still current:
 *
 * - a change commits → the instance hears its seq → every older entry is a miss from then on,
 *   on every instance (each hears the log itself; with Redis they share the entries and the
 *   comparison, the entry's seq ≥ the reader's, holds whichever instance wrote it);
 * - a read that started before the change and stores its answer after it stores it under the
 *   older generation, which nobody serves again: a late writer cannot put a sold listing back.
 *
 * A lost notification is covered by a poll of the counter and the tip every `pollMs`. The
 * entries are not deleted (they age out or are replaced); they are simply never served. The
 * edge lifetime in Cache-Control is unchanged: downstream caches keep what the spec allows.
 */
import type { Db } from '../store/db.js';
import type { EventNotifier } from '../events/notifier.js';

/** What a cached entry records of the market it was read from. */
export interface Generation {
  /** The highest event-log seq heard before the read. */
  seq: number;
  /** The indexer's last block, `height:hash` ('' before the first). */
  tip: string;
}

export class MarketGeneration {
  seq = 0;
  tip = '';
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly notifier: EventNotifier,
    private readonly pollMs = 1_000,
  ) {}

  /** The generation a request sees now (copied: the entry must keep what the read saw). */
  now(): Generation {
    return { seq: this.seq, tip: this.tip };
  }

  /** Whether an entry stored under `g` still shows the market as this instance knows it. */
  current(g: Partial<Generation>): boolean {
    return g.seq !== undefined && g.seq >= this.seq && g.tip === this.tip;
  }

  /** Reads the log's counter and the tip, then follows commits (notifications) and polls. */
  async start(): Promise<void> {
    await this.refresh();
    this.unsubscribe = this.notifier.subscribe((last) => {
      // A notification carries the committed seq (on both notifiers); without one, read it.
      if (last !== null && Number.isFinite(last)) this.seq = Math.max(this.seq, last);
      else void this.refresh();
    });
    this.timer = setInterval(() => this.poll(), this.pollMs);
    this.timer.unref();
  }

  close(): void {
    this.unsubscribe?.();
    clearInterval(this.timer);
  }

  /**
   * Reads the counter and the tip now (the indexer calls it after a run that moved the tip); a
   * read already in flight may have started before that commit, so this one reads after it. A
   * failure leaves the generation as it was (the next poll retries).
   */
  refresh(): Promise<void> {
    const next = (this.reading ?? Promise.resolve()).then(() => this.readOnce());
    this.reading = next;
    void next.finally(() => {
      if (this.reading === next) this.reading = undefined;
    });
    return next;
  }

  /** The safety-net poll: skipped while a read is in flight. */
  private poll(): void {
    if (!this.reading) void this.refresh();
  }

  private async readOnce(): Promise<void> {
    try {
      const [head, block] = await Promise.all([
        this.db.selectFrom('event_seq').select('last').where('id', '=', 1).executeTakeFirst(),
        this.db.selectFrom('indexed_blocks').select(['height', 'hash']).orderBy('height', 'desc').limit(1).executeTakeFirst(),
      ]);
      if (head) this.seq = Math.max(this.seq, Number(head.last));
      this.tip = block ? `${block.height}:${block.hash}` : '';
    } catch {
      /* the store is unreachable: keep the generation; readiness reports the store */
    }
  }
}
