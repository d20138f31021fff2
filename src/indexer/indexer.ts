import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../store/db.js';
import { compiledOnce } from '../store/compiled.js';
import type { Chain, ChainBlock, CpEvent } from '../chain/ports.js';
import type { Clock } from '../clock.js';
import { noFailpoint, type Failpoint } from '../failpoint.js';
import type { Lease } from '../cluster/fence.js';

/** What one processed block carries to the watchers. */
export interface IndexedBlock {
  block: ChainBlock;
  /** Counterparty events of the block (attach, detach, move, sends, credits, debits). */
  events: CpEvent[];
  /** When the market saw the block, ms. */
  seenAt: number;
}

/**
 * A part of the market that follows the chain. `onBlock` and `rollback` run inside the
 * indexer's transaction for that block, so the cursor and every watcher's state move together:
 * a crash resumes from the cursor with nothing half-done.
 *
 * A watcher that needs chain reads for a block does them in `prefetch`, before the transaction
 * opens (a database transaction must never wait on the network); what it returns is handed to
 * `onBlock` for the same block. A failed prefetch fails the run, which resumes at that block.
 */
export interface Watcher<P = unknown> {
  name: string;
  prefetch?(b: IndexedBlock): Promise<P>;
  onBlock(tx: Tx, b: IndexedBlock, prefetched: P): Promise<void>;
  /** Undo everything done for blocks at `height` and above (a reorg disconnected them). */
  rollback(tx: Tx, height: number): Promise<void>;
}

/** How deep the indexer will look back for a common ancestor before giving up loudly. */
const MAX_REORG_DEPTH = 100;

// Compiled once (store/compiled.ts): every answer that shows confirmations reads the cursor.
const newestBlock = compiledOnce((db) => db.selectFrom('indexed_blocks').select(['height', 'hash']).orderBy('height', 'desc').limit(1));

/**
 * The block follower. Each run brings the market from its stored cursor to
 * the tip both backends agree on. A block whose hash no longer matches the
 * chain is rolled back (newest first) before anything new is applied.
 */
export class Indexer {
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly chain: Chain,
    private readonly clock: Clock,
    private readonly watchers: Watcher[],
    private readonly log: FastifyBaseLogger,
    /** `afterRun`: told once a run applied or rolled back blocks (the response cache's generation reads the new tip at once). */
    private readonly opts: { startHeight?: number; maxBlocksPerRun?: number; failpoint?: Failpoint; afterRun?: () => Promise<void> } = {},
  ) {}

  /**
   * Runs never overlap: a second caller waits for the run in progress, then runs again. Under a
   * lease (the elected indexer of several instances), every block and rollback transaction checks
   * it first: once another instance has taken the role, this one's writes fail (FencedOut).
   */
  async run(lease?: Lease): Promise<{ from: number; to: number; rolledBack: number }> {
    while (this.running) await this.running;
    let result = { from: 0, to: 0, rolledBack: 0 };
    this.running = (async () => {
      result = await this.runOnce(lease);
    })().finally(() => {
      this.running = undefined;
    });
    await this.running;
    if ((result.to >= result.from || result.rolledBack) && this.opts.afterRun) await this.opts.afterRun();
    return result;
  }

  async cursor(): Promise<{ height: number; hash: string } | undefined> {
    return (await newestBlock(this.db)).rows[0] as { height: number; hash: string } | undefined;
  }

  private async runOnce(lease: Lease | undefined) {
    const tip = await this.chain.bitcoin.getTip();
    const cp = await this.chain.counterparty.getStatus();
    // Counterparty events of a block exist only once Counterparty parsed it.
    const target = Math.min(tip.height, cp.counterparty_height);
    let cursor = await this.cursor();
    let rolledBack = 0;

    if (cursor) {
      const fork = await this.findFork(cursor.height);
      if (fork < cursor.height) {
        rolledBack = cursor.height - fork;
        await this.rollbackTo(fork, lease);
        cursor = await this.cursor();
      }
    }

    const from = cursor ? cursor.height + 1 : (this.opts.startHeight ?? Math.max(0, target));
    const last = Math.min(target, from + (this.opts.maxBlocksPerRun ?? 500) - 1);
    for (let h = from; h <= last; h++) {
      const hash = await this.chain.bitcoin.getBlockHash(h);
      if (!hash) break;
      const block = await this.chain.bitcoin.getBlock(hash);
      if (!block) break;
      // The chain moved under us (a reorg mid-run): stop; the next run rolls back first.
      if (h > 0 && cursor && h === cursor.height + 1 && block.prev_hash !== cursor.hash) break;
      const events = await this.chain.counterparty.getBlockEvents(h);
      const indexed: IndexedBlock = { block, events, seenAt: this.clock.now() };
      const prefetched: unknown[] = [];
      for (const w of this.watchers) prefetched.push(w.prefetch ? await w.prefetch(indexed) : undefined);
      const seenAt = indexed.seenAt;
      await this.db.transaction().execute(async (tx) => {
        // First, so a stale leader holds no row lock of a block the new leader will apply.
        await lease?.check(tx);
        for (const [i, w] of this.watchers.entries()) await w.onBlock(tx, indexed, prefetched[i]);
        (this.opts.failpoint ?? noFailpoint)('indexer-block-before-commit');
        await tx.insertInto('indexed_blocks').values({ height: h, hash: block.hash, seen_at: seenAt }).execute();
      });
      cursor = { height: h, hash: block.hash };
    }
    if (rolledBack) this.log.warn({ rolledBack, to: cursor?.height }, 'indexer rolled back a reorg');
    return { from, to: cursor?.height ?? from - 1, rolledBack };
  }

  /** The highest indexed height whose hash the chain still has. */
  private async findFork(height: number): Promise<number> {
    const rows = await this.db
      .selectFrom('indexed_blocks')
      .select(['height', 'hash'])
      .where('height', '<=', height)
      .where('height', '>', height - MAX_REORG_DEPTH)
      .orderBy('height', 'desc')
      .execute();
    for (const row of rows) {
      const hash = await this.chain.bitcoin.getBlockHash(row.height);
      if (hash === row.hash) return row.height;
    }
    if (rows.length === 0) return height;
    throw new Error(`indexer: no common ancestor within ${MAX_REORG_DEPTH} blocks of ${height}`);
  }

  private async rollbackTo(fork: number, lease: Lease | undefined): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await lease?.check(tx);
      for (const w of [...this.watchers].reverse()) await w.rollback(tx, fork + 1);
      (this.opts.failpoint ?? noFailpoint)('indexer-rollback-before-commit');
      await tx.deleteFrom('indexed_blocks').where('height', '>', fork).execute();
    });
  }
}
