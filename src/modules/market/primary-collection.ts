import type { Db } from '../../store/db.js';

/** Bound on the assets of one `in (…)` list, well under either backend's parameter limit. */
const CHUNK = 500;

/**
 * The collection an asset is shown under: its primary membership, else the first of its
 * collections in catalogue order (the same choice as the artist reads). Assets outside the
 * catalogue are absent from the map.
 */
export async function primaryCollections(db: Db, assets: readonly string[]): Promise<Map<string, string>> {
  const distinct = [...new Set(assets)];
  const best = new Map<string, { slug: string; primary: number; order: number }>();
  for (let i = 0; i < distinct.length; i += CHUNK) {
    const rows = await db
      .selectFrom('catalog_assets as ca')
      .innerJoin('collections as c', 'c.slug', 'ca.collection_slug')
      .select(['ca.asset', 'ca.collection_slug', 'ca.is_primary', 'c.sort_order'])
      .where('ca.asset', 'in', distinct.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) {
      const cand = { slug: r.collection_slug, primary: Number(r.is_primary), order: Number(r.sort_order) };
      const cur = best.get(r.asset);
      if (!cur || better(cand, cur)) best.set(r.asset, cand);
    }
  }
  return new Map([...best].map(([asset, c]) => [asset, c.slug]));
}

const better = (a: { slug: string; primary: number; order: number }, b: { slug: string; primary: number; order: number }) =>
  a.primary !== b.primary ? a.primary > b.primary : a.order !== b.order ? a.order < b.order : a.slug < b.slug;
