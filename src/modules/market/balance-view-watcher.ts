/**
 * The Counterparty balance view of catalogue assets (cp_assets, cp_balances, cp_holdings), kept
 * by the indexer block by block. Counterparty's own answer per asset replaces that asset's rows
 * whole; nothing is computed from event arithmetic, so the copy cannot drift by a missed rule.
 *
 * What a block refreshes (fetched in `prefetch`, before the indexer's transaction opens):
 * 1. every catalogue asset a Counterparty event of the block names (`params.asset`: credits,
 *    debits, attaches, detaches, UTXO moves, issuances…);
 * 2. up to `backfillPerBlock` catalogue assets the view has never read (assets held before the
 *    market started, or added by a catalogue import) and assets a reorg made stale;
 * 3. up to `sweepPerBlock` of the assets read longest ago (older than `sweepAgeBlocks`), a slow
 *    safety net for anything the first two miss.
 * Balances are Counterparty's state when fetched, which can be a few blocks ahead of the block
 * being applied while the indexer catches up; later blocks touching the asset refresh it again.
 *
 * Rollback (a reorg disconnected blocks ≥ height): assets last read at those heights are marked
 * stale and read again with the next block; `cp_view_blocks` forgets the disconnected heights.
 * An asset whose read fails for any reason other than an unavailable upstream is skipped (and
 * retried with the next block) so one bad asset cannot stall the indexer; an unavailable
 * upstream fails the run, which resumes at the same block.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../../store/db.js';
import { UpstreamUnavailable, type CounterpartyBackend, type CpBalance } from '../../chain/ports.js';
import type { IndexedBlock, Watcher } from '../../indexer/indexer.js';
import { mapPool } from '../../util/pool.js';
import { UNIT } from '../../counterparty/asset-names.js';

export interface BalanceViewOptions {
  backfillPerBlock?: number;
  sweepPerBlock?: number;
  sweepAgeBlocks?: number;
  concurrency?: number;
}

interface AssetMeta {
  asset_longname: string | null;
  /** null while Counterparty does not know the asset. */
  divisible: boolean | null;
}

interface Refresh {
  asset: string;
  meta: AssetMeta;
  balances: CpBalance[];
}

interface Prefetched {
  refresh: Refresh[];
  lastEventIndex: number | null;
}

const CHUNK = 500;
const INSERT_ROWS = 200;
/** Far deeper than any reorg the indexer follows (it gives up beyond 100 blocks). */
const VIEW_BLOCKS_KEPT = 1_000;

/** Whole units per owner address: detached and attached raw amounts summed, then divided by the unit. */
export function wholeUnits(balances: readonly CpBalance[], divisible: boolean): Map<string, number> {
  const raw = new Map<string, bigint>();
  for (const b of balances) if (b.address) raw.set(b.address, (raw.get(b.address) ?? 0n) + BigInt(b.quantity_raw));
  const unit = divisible ? UNIT : 1n;
  const out = new Map<string, number>();
  for (const [address, q] of raw) {
    const units = q / unit;
    // Stored as a JSON-safe number; an edition this large is beyond any collectible.
    if (units > 0n) out.set(address, units > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(units));
  }
  return out;
}

async function inChunks<T>(items: readonly string[], f: (part: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(...(await f(items.slice(i, i + CHUNK))));
  return out;
}

export function balanceViewWatcher(db: Db, cp: CounterpartyBackend, log: FastifyBaseLogger, opts: BalanceViewOptions = {}): Watcher<Prefetched> {
  const backfill = opts.backfillPerBlock ?? 200;
  const sweep = opts.sweepPerBlock ?? 5;
  const sweepAge = opts.sweepAgeBlocks ?? 144;
  const concurrency = opts.concurrency ?? 4;

  /** The catalogue assets this block refreshes, in priority order, without repeats. */
  async function due(b: IndexedBlock): Promise<string[]> {
    const named = [...new Set(b.events.map((e) => e.params.asset).filter((a): a is string => typeof a === 'string'))];
    const touched = await inChunks(named, (part) =>
      db.selectFrom('catalog_assets').select('asset').distinct().where('asset', 'in', part).execute().then((rs) => rs.map((r) => r.asset)),
    );
    const unseen = await db
      .selectFrom('catalog_assets as ca')
      .leftJoin('cp_assets as a', 'a.asset', 'ca.asset')
      .select('ca.asset')
      .distinct()
      .where('a.asset', 'is', null)
      .orderBy('ca.asset')
      .limit(backfill)
      .execute();
    const stale = await db.selectFrom('cp_assets').select('asset').where('stale', '=', 1).orderBy('refreshed_height').limit(backfill).execute();
    const old = await db
      .selectFrom('cp_assets')
      .select('asset')
      .where('stale', '=', 0)
      .where('refreshed_height', '<', b.block.height - sweepAge)
      .orderBy('refreshed_height')
      .limit(sweep)
      .execute();
    const backlog = [...stale, ...unseen].map((r) => r.asset).slice(0, backfill);
    return [...new Set([...touched, ...backlog, ...old.map((r) => r.asset)])];
  }

  async function read(asset: string, known: AssetMeta | undefined): Promise<Refresh | null> {
    try {
      const balances = await cp.getAssetBalances(asset);
      if (known && known.divisible !== null) return { asset, meta: known, balances };
      const info = await cp.getAsset(asset);
      return { asset, meta: info ? { asset_longname: info.asset_longname, divisible: info.divisible } : { asset_longname: null, divisible: null }, balances };
    } catch (e) {
      if (e instanceof UpstreamUnavailable) throw e;
      log.warn({ asset, err: (e as Error).message }, 'balance view: asset read failed; retried with the next block');
      return null;
    }
  }

  async function write(tx: Tx, r: Refresh, height: number, at: number): Promise<void> {
    await tx.deleteFrom('cp_balances').where('asset', '=', r.asset).execute();
    await tx.deleteFrom('cp_holdings').where('asset', '=', r.asset).execute();
    const rows = r.balances
      .filter((b) => b.utxo !== null || b.address !== null)
      .map((b) => ({ asset: r.asset, holder: (b.utxo ?? b.address)!, address: b.address, utxo: b.utxo, quantity_raw: b.quantity_raw }));
    for (let i = 0; i < rows.length; i += INSERT_ROWS) await tx.insertInto('cp_balances').values(rows.slice(i, i + INSERT_ROWS)).execute();
    if (r.meta.divisible !== null) {
      const held = [...wholeUnits(r.balances, r.meta.divisible)].map(([address, units]) => ({ asset: r.asset, address, units }));
      for (let i = 0; i < held.length; i += INSERT_ROWS) await tx.insertInto('cp_holdings').values(held.slice(i, i + INSERT_ROWS)).execute();
    }
    const row = {
      asset_longname: r.meta.asset_longname,
      divisible: r.meta.divisible === null ? null : Number(r.meta.divisible),
      refreshed_height: height,
      refreshed_at: at,
      stale: 0,
    };
    await tx
      .insertInto('cp_assets')
      .values({ asset: r.asset, ...row })
      .onConflict((oc) => oc.column('asset').doUpdateSet(row))
      .execute();
  }

  return {
    name: 'balance-view',
    prefetch: async (b) => {
      const assets = await due(b);
      const known = new Map(
        (await inChunks(assets, (part) => db.selectFrom('cp_assets').select(['asset', 'asset_longname', 'divisible']).where('asset', 'in', part).execute())).map((r) => [
          r.asset,
          { asset_longname: r.asset_longname, divisible: r.divisible === null ? null : Number(r.divisible) === 1 },
        ]),
      );
      const refresh = (await mapPool(assets, concurrency, (a) => read(a, known.get(a)))).filter((r): r is Refresh => r !== null);
      const lastEventIndex = b.events.reduce<number | null>((m, e) => (m === null || e.event_index > m ? e.event_index : m), null);
      return { refresh, lastEventIndex };
    },
    onBlock: async (tx, b, pre) => {
      for (const r of pre.refresh) await write(tx, r, b.block.height, b.seenAt);
      const prev = await tx.selectFrom('cp_view_blocks').select('as_of_event_index').orderBy('height', 'desc').limit(1).executeTakeFirst();
      const before = prev?.as_of_event_index == null ? null : Number(prev.as_of_event_index);
      const asOf = pre.lastEventIndex === null ? before : before === null ? pre.lastEventIndex : Math.max(before, pre.lastEventIndex);
      await tx.insertInto('cp_view_blocks').values({ height: b.block.height, as_of_event_index: asOf }).execute();
      // Only the newest rows matter (the tip's, and those a reorg can fall back to).
      await tx.deleteFrom('cp_view_blocks').where('height', '<', b.block.height - VIEW_BLOCKS_KEPT).execute();
    },
    rollback: async (tx, height) => {
      await tx.updateTable('cp_assets').set({ stale: 1 }).where('refreshed_height', '>=', height).execute();
      await tx.deleteFrom('cp_view_blocks').where('height', '>=', height).execute();
    },
  };
}
