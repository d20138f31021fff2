import type { Db } from '../../store/db.js';
import type { AssetTraits } from './policy-predicate.js';

/** An asset's curated catalogue memberships, as the policy predicate reads them (one row per collection). */
export const assetMemberships = (db: Db, asset: string): Promise<AssetTraits[]> => memberships(db, 'asset', asset);

/** A collection's member rows, as the policy predicate reads them. */
export const collectionMembers = (db: Db, slug: string): Promise<AssetTraits[]> => memberships(db, 'collection_slug', slug);

async function memberships(db: Db, column: 'asset' | 'collection_slug', value: string): Promise<AssetTraits[]> {
  const rows = await db.selectFrom('catalog_assets').select(['asset', 'collection_slug', 'max_supply_units', 'issued_year', 'series', 'artist']).where(column, '=', value).execute();
  return rows.map((r) => ({
    asset: r.asset,
    collection_slug: r.collection_slug,
    max_supply_units: r.max_supply_units === null ? null : Number(r.max_supply_units),
    issued_year: r.issued_year === null ? null : Number(r.issued_year),
    series: r.series === null ? null : Number(r.series),
    artist: r.artist,
  }));
}
