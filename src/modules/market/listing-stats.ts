import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../../store/db.js';
import type { DatabaseSchema } from '../../store/schema.js';

/**
 * Public fillable listing figures for the catalogue reads. `listed` counts
 * public fillable listings (state `active`, not past `expires_at`); pending,
 * reserved, sold and ended listings never count, and neither do they set
 * the floor. One listing is one row however many collections its asset is in.
 */
export interface ListingStats {
  listed: number;
  floor_sats: number | null;
}

export const NO_LISTINGS: ListingStats = Object.freeze({ listed: 0, floor_sats: null });

export const statsOf = (m: ReadonlyMap<string, ListingStats>, key: string): ListingStats => m.get(key) ?? NO_LISTINGS;

/** Bound on the assets of one `in (…)` list, well under either backend's parameter limit. */
const CHUNK = 500;

type Row = { key: string | null; listed: number | string | bigint; floor: number | string | bigint | null };

const toMap = (rows: Row[]): Map<string, ListingStats> =>
  new Map(rows.filter((r) => r.key !== null).map((r) => [r.key as string, { listed: Number(r.listed), floor_sats: r.floor === null ? null : Number(r.floor) }]));

type ListingsAs<A extends string> = ExpressionBuilder<DatabaseSchema & { [K in A]: DatabaseSchema['listings'] }, A>;

/**
 * The one rule for "public fillable now", for a query over `listings as l`: state `active`, with
 * no expiry or one still ahead. Every market read (counts, floors, the book, offer targets,
 * analytics) filters with this, so they can never disagree about what is listed.
 */
export const publicFillable = (now: number) => (eb: ListingsAs<'l'>) =>
  eb.and([eb('l.state', '=', 'active'), eb.or([eb('l.expires_at', 'is', null), eb('l.expires_at', '>', now)])]);

/** Reads the seller side's `listings` table; the clock decides what has expired (expiry is derived at read time). */
export class ListingStatsReader {
  constructor(
    private readonly db: Db,
    private readonly nowSeconds: () => number,
  ) {}

  /** Public and fillable now: `active`, with no expiry or one still ahead. */
  private live(now: number) {
    return publicFillable(now);
  }

  /** Per asset, for the given assets. */
  async byAsset(assets: readonly string[]): Promise<Map<string, ListingStats>> {
    const now = this.nowSeconds();
    const out = new Map<string, ListingStats>();
    for (let i = 0; i < assets.length; i += CHUNK) {
      const rows = await this.db
        .selectFrom('listings as l')
        .select('l.asset as key')
        .select((eb) => [eb.fn.countAll().as('listed'), eb.fn.min('l.price_sats').as('floor')])
        .where('l.asset', 'in', assets.slice(i, i + CHUNK))
        .where(this.live(now))
        .groupBy('l.asset')
        .execute();
      for (const [k, v] of toMap(rows)) out.set(k, v);
    }
    return out;
  }

  /** Per collection slug: listings of every member asset (primary or secondary membership). */
  async byCollection(slugs: readonly string[]): Promise<Map<string, ListingStats>> {
    if (slugs.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('catalog_assets as ca')
      .innerJoin('listings as l', 'l.asset', 'ca.asset')
      .select('ca.collection_slug as key')
      .select((eb) => [eb.fn.count('l.id').as('listed'), eb.fn.min('l.price_sats').as('floor')])
      .where('ca.collection_slug', 'in', [...slugs])
      .where(this.live(this.nowSeconds()))
      .groupBy('ca.collection_slug')
      .execute();
    return toMap(rows);
  }

  /** Per artist credit text: listings of the distinct assets the credit names (an asset in two collections counts once). */
  async byCredit(): Promise<Map<string, ListingStats>> {
    const credited = this.db.selectFrom('catalog_assets').select(['artist', 'asset']).distinct().where('artist', 'is not', null).as('d');
    const rows = await this.db
      .selectFrom(credited)
      .innerJoin('listings as l', 'l.asset', 'd.asset')
      .select('d.artist as key')
      .select((eb) => [eb.fn.count('l.id').as('listed'), eb.fn.min('l.price_sats').as('floor')])
      .where(this.live(this.nowSeconds()))
      .groupBy('d.artist')
      .execute();
    return toMap(rows);
  }
}
