/**
 * Collection holders from the balance view (cp_holdings): whole units per owner address over
 * the collection's catalogue assets, detached and UTXO-attached balances together (an attached
 * balance counts for the address that owns the UTXO). The totals and the ranking are kept by
 * the database (migration 070); only the ranked holders' own assets are read here, bounded.
 */
import type { Db } from '../../store/db.js';
import { notFound } from '../../http/errors.js';

/** The spec caps `holders` at 50 items whatever `limit` asks (1..100 is accepted, then clamped). */
export const MAX_HOLDERS = 50;
export const ASSETS_PER_HOLDER = 10;

export interface Holder {
  address: string;
  edition_units: number;
  percent_collected: number;
  distinct_assets: number;
  assets: string[];
}

export interface Holders {
  holders: Holder[];
  holder_count: number;
  total_edition_units: number;
  collection_assets: number;
  indexed_assets: number;
  as_of_event_index: number | null;
}

/** distinct / total × 100, two decimals, never above 100. */
export const percentCollected = (distinct: number, total: number): number => (total > 0 ? Math.min(100, Math.round((distinct / total) * 10_000) / 100) : 0);

export class HoldersService {
  constructor(private readonly db: Db) {}

  /** The collection's holdings: one cp_holdings row per (asset, owner) with at least one whole unit. */
  private held(slug: string) {
    return this.db
      .selectFrom('catalog_assets as ca')
      .innerJoin('cp_holdings as h', 'h.asset', 'ca.asset')
      .where('ca.collection_slug', '=', slug)
      .where('h.units', '>', 0);
  }

  async holders(slug: string, limit: number): Promise<Holders> {
    if (!(await this.db.selectFrom('collections').select('slug').where('slug', '=', slug).executeTakeFirst())) throw notFound('collection');
    const n = Math.min(limit, MAX_HOLDERS);

    // The totals and the ranking are kept by the database as holdings change (migration 070,
    // holding-totals-tables.ts): a read of one line and a LIMIT along an index, whatever the
    // collection's size; the counts they keep are the ones this read made before (a recount
    // test: test/market/holding-totals.test.ts).
    const totals = await this.db
      .selectFrom('collection_holding_totals')
      .select(['holders', 'units', 'assets', 'indexed'])
      .where('collection_slug', '=', slug)
      .executeTakeFirst();
    const top = await this.db
      .selectFrom('holding_totals')
      .select(['address', 'units', 'assets as distinct'])
      .where('collection_slug', '=', slug)
      .orderBy('units', 'desc')
      .orderBy('assets', 'desc')
      .orderBy('address')
      .limit(n)
      .execute();

    const assets = new Map<string, string[]>();
    if (top.length) {
      const ranked = this.held(slug)
        .select(['h.address', 'h.asset'])
        .select((eb) => eb.fn.agg<number>('row_number').over((o) => o.partitionBy('h.address').orderBy('h.units', 'desc').orderBy('h.asset')).as('rank'))
        .where('h.address', 'in', top.map((t) => t.address))
        .as('r');
      const rows = await this.db.selectFrom(ranked).select(['r.address', 'r.asset']).where('r.rank', '<=', ASSETS_PER_HOLDER).orderBy('r.address').orderBy('r.rank').execute();
      for (const r of rows) assets.set(r.address, [...(assets.get(r.address) ?? []), r.asset]);
    }

    const asOf = await this.db.selectFrom('cp_view_blocks').select('as_of_event_index').orderBy('height', 'desc').limit(1).executeTakeFirst();
    const collectionAssets = Number(totals?.assets ?? 0);
    return {
      holders: top.map((t) => ({
        address: t.address,
        edition_units: Number(t.units),
        percent_collected: percentCollected(Number(t.distinct), collectionAssets),
        distinct_assets: Number(t.distinct),
        assets: assets.get(t.address) ?? [],
      })),
      holder_count: Number(totals?.holders ?? 0),
      total_edition_units: Number(totals?.units ?? 0),
      collection_assets: collectionAssets,
      indexed_assets: Number(totals?.indexed ?? 0),
      as_of_event_index: asOf?.as_of_event_index == null ? null : Number(asOf.as_of_event_index),
    };
  }
}

