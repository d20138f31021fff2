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
}
