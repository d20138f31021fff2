import type { Db } from '../../store/db.js';
import { notFound } from '../../http/errors.js';
import { type ListingStatsReader, statsOf } from './listing-stats.js';
import { compareNames } from './artist-keys.js';

/** Keyset position of the collections list: the last row's (sort_order, slug). */
export type CollectionsPosition = [number, string];

export interface CollectionRow {
  slug: string;
  name: string;
  description: string | null;
  assets: number;
  listed: number;
  floor_sats: number | null;
}

export interface TraitCount<V> {
  value: V;
  assets: number;
}

export interface CollectionDetail extends CollectionRow {
  traits: {
    issued_year: TraitCount<number>[];
    series: TraitCount<number>[];
    artist: TraitCount<string>[];
    media_kind: TraitCount<string>[];
  };
}

/** The curated collections: their order is the catalogue's own (`sort_order`), then slug. */
export class CollectionsService {
  constructor(
    private readonly db: Db,
    private readonly stats: ListingStatsReader,
  ) {}

  async page(limit: number, after: CollectionsPosition | undefined): Promise<{ rows: CollectionRow[]; next: CollectionsPosition | null }> {
    let q = this.db
      .selectFrom('collections as c')
      .leftJoin('catalog_assets as ca', 'ca.collection_slug', 'c.slug')
      .select(['c.slug', 'c.name', 'c.description', 'c.sort_order'])
      .select((eb) => eb.fn.count<number>('ca.asset').as('assets'))
      .groupBy(['c.slug', 'c.name', 'c.description', 'c.sort_order'])
      .orderBy('c.sort_order')
      .orderBy('c.slug')
      .limit(limit + 1);
    if (after) {
      const [order, slug] = after;
      q = q.where((eb) => eb.or([eb('c.sort_order', '>', order), eb.and([eb('c.sort_order', '=', order), eb('c.slug', '>', slug)])]));
    }
    const found = await q.execute();
    const rows = found.slice(0, limit);
    const stats = await this.stats.byCollection(rows.map((r) => r.slug));
    const last = rows[rows.length - 1];
    return {
      rows: rows.map((r) => ({
        slug: r.slug,
        name: r.name,
        description: r.description,
        assets: Number(r.assets),
        ...statsOf(stats, r.slug),
      })),
      next: found.length > limit && last ? [Number(last.sort_order), last.slug] : null,
    };
  }

  async detail(slug: string): Promise<CollectionDetail> {
    const c = await this.db.selectFrom('collections').select(['slug', 'name', 'description']).where('slug', '=', slug).executeTakeFirst();
    if (!c) throw notFound('collection');
    const members = await this.db
      .selectFrom('catalog_assets')
      .select(['asset', 'issued_year', 'series', 'artist', 'media_kind'])
      .where('collection_slug', '=', slug)
      .execute();
    const stats = await this.stats.byCollection([slug]);
    const numeric = (pick: (m: (typeof members)[number]) => number | null) =>
      tally(members.map(pick)).sort((a, b) => a.value - b.value);
    const textual = (pick: (m: (typeof members)[number]) => string | null) =>
      tally(members.map(pick)).sort((a, b) => compareNames(a.value, b.value));
    return {
      slug: c.slug,
      name: c.name,
      description: c.description,
      assets: members.length,
      ...statsOf(stats, c.slug),
      traits: {
        issued_year: numeric((m) => (m.issued_year === null ? null : Number(m.issued_year))),
        series: numeric((m) => (m.series === null ? null : Number(m.series))),
        artist: textual((m) => (m.artist ? m.artist : null)),
        media_kind: textual((m) => m.media_kind),
      },
    };
  }
}

/** Distinct non-null values with how many member assets carry each. */
function tally<V extends string | number>(values: (V | null)[]): TraitCount<V>[] {
  const counts = new Map<V, number>();
  for (const v of values) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([value, assets]) => ({ value, assets }));
}
