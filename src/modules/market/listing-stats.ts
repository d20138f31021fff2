import type { Db } from '../../store/db.js';

/**
 * Public fillable listing figures for the catalogue reads. `listed` counts
 * public fillable listings (state `active`, not past `expires_at`); pending,
 * private, reserved and ended listings never count, and neither do they set
 * the floor. One listing is one row however many collections its asset is in.
 */
export interface ListingStats {
  listed: number;
  floor_sats: number | null;
}

export const NO_LISTINGS: ListingStats = Object.freeze({ listed: 0, floor_sats: null });

export const statsOf = (m: ReadonlyMap<string, ListingStats>, key: string): ListingStats => m.get(key) ?? NO_LISTINGS;

/**
 * Live listings are read from the seller side's `listings` table once it is
 * part of the schema; until then every figure is `NO_LISTINGS`.
 */
export class ListingStatsReader {
  constructor(
    private readonly _db: Db,
    private readonly _nowSeconds: () => number,
  ) {}

  /** Per asset, for the given assets. */
  async byAsset(_assets: readonly string[]): Promise<Map<string, ListingStats>> {
    return new Map();
  }

  /** Per collection slug: listings of every member asset (primary or secondary membership). */
  async byCollection(_slugs: readonly string[]): Promise<Map<string, ListingStats>> {
    return new Map();
  }

  /** Per artist credit text: listings of the distinct assets the credit names. */
  async byCredit(): Promise<Map<string, ListingStats>> {
    return new Map();
  }
}
