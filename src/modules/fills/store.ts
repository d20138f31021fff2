import { sql } from 'kysely';
import type { Db } from '../../store/db.js';
import { before, mergeBranches, type KeysetPosition } from '../../store/keyset.js';
import type { FillTables } from '../../trade/fill-tables.js';
import { FILL_COLUMNS } from '../../trade/fill-row.js';

type Fill = FillTables['fills'];

export type FillRole = 'buyer' | 'seller' | 'any';

export interface FillFilters {
  address?: string;
  role: FillRole;
  asset?: string;
  /** Collection slug: fills of any member asset (primary or secondary membership). */
  collection?: string;
  status?: 'pending' | 'confirmed';
}

/** What a page reads of a fill: the public row plus the keys it is ordered by. */
export type FillPageRow = Pick<
  Fill,
  | 'id'
  | 'state'
  | 'txid'
  | 'kind'
  | 'ref_id'
  | 'asset'
  | 'asset_longname'
  | 'seller'
  | 'buyer'
  | 'price_sats'
  | 'platform_fee_sats'
  | 'delivery_mode'
  | 'broadcast_at'
  | 'confirmed_at'
  | 'block_index'
>;

const COLUMNS = ['f.id', ...FILL_COLUMNS] as const;

/** Public fill history: dropped fills are never read. */
export class FillStore {
  constructor(private readonly db: Db) {}

  async collectionExists(slug: string): Promise<boolean> {
    return !!(await this.db.selectFrom('collections').select('slug').where('slug', '=', slug).executeTakeFirst());
  }

  /** Up to `limit` fills older than `after`, newest first by (broadcast_at, id). */
  page(f: FillFilters, limit: number, after: KeysetPosition | undefined): Promise<FillPageRow[]> {
    return mergeBranches(this.db, this.branches(f, limit, after), 'broadcast_at', 'id', limit);
  }

  /**
   * One branch per index to walk: an address with role `any` reads its seller and its buyer
   * fills as two branches (each on its own index) rather than one OR that no index orders.
   * Exported for the query-plan test.
   */
  branches(f: FillFilters, limit: number, after: KeysetPosition | undefined) {
    if (f.collection !== undefined && f.address === undefined && f.asset === undefined && f.status !== 'pending') return [this.collectionBranch(f.collection, f.status, limit, after)];
    const base = () => {
      let q = this.db
        .selectFrom('fills as f')
        .select([...COLUMNS])
        // Without a status, `!= dropped` rather than `in (pending, confirmed)`, which would lead the
        // planner to the (state, broadcast_at) index and a full sort instead of fills_broadcast.
        .where('f.state', f.status ? '=' : '!=', f.status ?? 'dropped');
      if (f.asset) q = q.where('f.asset', '=', f.asset);
      if (f.collection) {
        const members = this.db.selectFrom('catalog_assets').select('asset').where('collection_slug', '=', f.collection);
        q = q.where('f.asset', 'in', members);
      }
      if (after) q = q.where(before(sql.ref('f.broadcast_at'), sql.ref('f.id'), after));
      return q;
    };
    const a = f.address;
    const parts =
      a === undefined
        ? [base()]
        : f.role === 'seller'
          ? [base().where('f.seller', '=', a)]
          : f.role === 'buyer'
            ? [base().where('f.buyer', '=', a)]
            : // A fill where the address is both sides is read once, by the seller branch.
              [base().where('f.seller', '=', a), base().where('f.buyer', '=', a).where('f.seller', '!=', a)];
    return parts.map((q) => q.orderBy('f.broadcast_at', 'desc').orderBy('f.id', 'desc').limit(limit));
  }

  /**
   * A collection's fills, newest first: a range of `book_fills` (its member assets' shown fills
   * by time, kept by triggers: migration 085) from the position, each fill joined by id, stopping
   * at `limit`. Without it a collection of a few assets in a market of many sales walked the
   * market's fills newest first until enough were its own. Shown is pending or confirmed, as the
   * route's `!= dropped`; `confirmed` is tested on the way (most shown fills are confirmed), while
   * `pending`, an address or an asset narrow the read further and keep their own indexes.
   * CROSS JOIN keeps SQLite's loops in that order; PostgreSQL plans it as any inner join.
   */
  private collectionBranch(slug: string, status: 'confirmed' | undefined, limit: number, after: KeysetPosition | undefined) {
    let q = this.db
      .selectFrom('book_fills as bf')
      .crossJoin('fills as f')
      .select([...COLUMNS])
      .where('bf.collection_slug', '=', slug)
      .whereRef('f.id', '=', 'bf.fill_id');
    if (status) q = q.where('f.state', '=', status);
    if (after) q = q.where(before(sql.ref('bf.broadcast_at'), sql.ref('bf.fill_id'), after));
    return q.orderBy('bf.broadcast_at', 'desc').orderBy('bf.fill_id', 'desc').limit(limit);
  }
}
