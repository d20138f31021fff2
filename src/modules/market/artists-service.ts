import { ApiError, notFound } from '../../http/errors.js';
import { CREDIT_PREFIX, asciiIncludes, asciiLower, compareNames, creditCandidates, creditKey, fingerprint, letterOf } from './artist-keys.js';
import { displayNameOf, type ArtistsStore, type CreditedMembership, type CuratedArtist } from './artists-store.js';
import { type ListingStats, type ListingStatsReader, NO_LISTINGS, statsOf } from './listing-stats.js';

export type ArtistSort = 'name' | 'artworks';

/** One effective artist credit: a curated artist, or a credit text no curated artist carries. */
export interface ArtistRow extends ListingStats {
  key: string;
  id: string | null;
  name: string;
  curated: boolean;
  artworks: number;
}

export interface ArtistDetail extends ListingStats {
  key: string;
  id: string | null;
  name: string;
  curated: boolean;
  bio: string | null;
  website: string | null;
  x_url: string | null;
  version: number | null;
  assets: number;
  collections: { slug: string; name: string; assets: number }[];
}

export interface ArtistAssetRow extends ListingStats {
  asset: string;
  collection: string;
  also_in: string[];
  max_supply_units: number | null;
  issued_year: number | null;
  series: number | null;
  media_kind: string | null;
  protocol_subtype: string | null;
}

/**
 * Position after the last row of an artists page, short enough for a 200-char
 * cursor: the row's sort key (negated artworks or 0, and the first 12 ASCII
 * lowercased characters of its name) and a fingerprint of its key. The page
 * resumes right after the fingerprinted row; if a catalogue import removed it,
 * at the first row not before the truncated sort key (repeats, never skips).
 */
export type ArtistsPosition = [number, string, string];

const NAME_PREFIX = 12;

export interface ArtistFilters {
  q: string | undefined;
  letter: string | undefined;
  sort: ArtistSort;
}

export interface ArtistAssetFilters {
  q: string | undefined;
  collection: string | undefined;
  listed: boolean;
}

export interface Resolved {
  credit: string;
  curated: CuratedArtist | undefined;
  key: string;
}

export class ArtistsService {
  constructor(
    private readonly store: ArtistsStore,
    private readonly stats: ListingStatsReader,
  ) {}

  /** Curated artists (credited or not) plus credits that no curated artist carries. */
  async effective(): Promise<ArtistRow[]> {
    const [curated, counts, stats] = await Promise.all([this.store.curated(), this.store.creditCounts(), this.stats.byCredit()]);
    const slugUses = new Map<string, number>();
    for (const a of curated) slugUses.set(a.slug, (slugUses.get(a.slug) ?? 0) + 1);
    const artworks = new Map(counts.map((c) => [c.credit, c.artworks]));
    const rows: ArtistRow[] = curated.map((a) => ({
      key: slugUses.get(a.slug) === 1 ? a.slug : creditKey(a.name),
      id: a.id,
      name: displayNameOf(a),
      curated: true,
      artworks: artworks.get(a.name) ?? 0,
      ...statsOf(stats, a.name),
    }));
    const curatedNames = new Set(curated.map((a) => a.name));
    for (const c of counts) {
      if (curatedNames.has(c.credit)) continue;
      rows.push({ key: creditKey(c.credit), id: null, name: c.credit, curated: false, artworks: c.artworks, ...statsOf(stats, c.credit) });
    }
    return rows;
  }

  async page(f: ArtistFilters, limit: number, after: ArtistsPosition | undefined): Promise<{ rows: ArtistRow[]; next: ArtistsPosition | null }> {
    const all = (await this.effective()).filter(
      (r) => (f.q === undefined || asciiIncludes(r.name, f.q)) && (f.letter === undefined || letterOf(r.name) === f.letter),
    );
    const byArtworks = f.sort === 'artworks';
    all.sort((a, b) => (byArtworks ? b.artworks - a.artworks : 0) || compareNames(a.name, b.name) || cmp(a.id ?? '', b.id ?? '') || cmp(a.key, b.key));
    const sortKey = (r: ArtistRow): [number, string] => [byArtworks ? -r.artworks : 0, asciiLower(r.name).slice(0, NAME_PREFIX)];
    let start = 0;
    if (after) {
      const [n, prefix, print] = after;
      const at = all.findIndex((r) => fingerprint(r.key) === print);
      start = at >= 0 ? at + 1 : all.findIndex((r) => (sortKey(r)[0] - n || cmp(sortKey(r)[1], prefix)) >= 0);
      if (start < 0) start = all.length;
    }
    const rows = all.slice(start, start + limit);
    const last = rows[rows.length - 1];
    return { rows, next: start + limit < all.length && last ? [...sortKey(last), fingerprint(last.key)] : null };
  }

  /** A readable slug (unique among curated artists), or `~` + the URL-encoded credit. */
  async resolve(key: string): Promise<Resolved> {
    for (const credit of creditCandidates(key)) {
      const curated = await this.store.curatedByName(credit);
      if (curated) return { credit, curated, key: await this.keyOfCurated(curated) };
      if (await this.store.creditExists(credit)) return { credit, curated: undefined, key: creditKey(credit) };
    }
    if (!key.startsWith(CREDIT_PREFIX)) {
      const found = await this.store.curatedBySlug(key);
      if (found.length > 1) throw new ApiError('not_found', 'Artist slug is ambiguous; use the artist’s ~ key');
      const only = found[0];
      if (only) return { credit: only.name, curated: only, key: only.slug };
    }
    throw notFound('artist');
  }

  async detail(key: string): Promise<ArtistDetail> {
    const { credit, curated, key: canonical } = await this.resolve(key);
    const members = await this.store.memberships(credit);
    const assets = [...new Set(members.map((m) => m.asset))];
    const stats = await this.stats.byAsset(assets);
    const collections = new Map<string, { slug: string; name: string; order: number; assets: Set<string> }>();
    for (const m of members) {
      const c = collections.get(m.collection_slug) ?? { slug: m.collection_slug, name: m.collection_name, order: m.sort_order, assets: new Set<string>() };
      c.assets.add(m.asset);
      collections.set(m.collection_slug, c);
    }
    return {
      key: canonical,
      id: curated?.id ?? null,
      name: curated ? displayNameOf(curated) : credit,
      curated: curated !== undefined,
      bio: curated?.bio ?? null,
      website: curated?.website ?? null,
      x_url: curated?.x_url ?? null,
      version: curated?.version ?? null,
      assets: assets.length,
      ...combine(assets.map((a) => statsOf(stats, a))),
      collections: [...collections.values()]
        .sort((a, b) => a.order - b.order || cmp(a.slug, b.slug))
        .map((c) => ({ slug: c.slug, name: c.name, assets: c.assets.size })),
    };
  }

  async assets(key: string, f: ArtistAssetFilters, limit: number, after: string | undefined): Promise<{ rows: ArtistAssetRow[]; next: string | null }> {
    const { credit } = await this.resolve(key);
    const byAsset = new Map<string, CreditedMembership[]>();
    for (const m of await this.store.memberships(credit)) byAsset.set(m.asset, [...(byAsset.get(m.asset) ?? []), m]);
    const stats = await this.stats.byAsset([...byAsset.keys()]);
    const matching = [...byAsset]
      .filter(([asset, ms]) => (f.q === undefined || asciiIncludes(asset, f.q)) && (f.collection === undefined || ms.some((m) => m.collection_slug === f.collection)))
      .filter(([asset]) => !f.listed || statsOf(stats, asset).listed > 0)
      .filter(([asset]) => after === undefined || asset > after)
      .sort(([a], [b]) => cmp(a, b));
    const rows = matching.slice(0, limit).map(([asset, ms]) => assetRow(asset, ms, statsOf(stats, asset)));
    const last = rows[rows.length - 1];
    return { rows, next: matching.length > limit && last ? last.asset : null };
  }

  private async keyOfCurated(a: CuratedArtist): Promise<string> {
    return (await this.store.curatedBySlug(a.slug)).length === 1 ? a.slug : creditKey(a.name);
  }
}

const cmp = (a: string, b: string): number => (a === b ? 0 : a < b ? -1 : 1);

/** Listings of several distinct assets: counts add up, the floor is the lowest. */
function combine(parts: ListingStats[]): ListingStats {
  return parts.reduce<ListingStats>(
    (acc, s) => ({
      listed: acc.listed + s.listed,
      floor_sats: s.floor_sats === null ? acc.floor_sats : acc.floor_sats === null ? s.floor_sats : Math.min(acc.floor_sats, s.floor_sats),
    }),
    NO_LISTINGS,
  );
}

/** One row per asset: traits and `collection` from the primary membership (else the first collection in catalogue order). */
function assetRow(asset: string, ms: CreditedMembership[], stats: ListingStats): ArtistAssetRow {
  const ordered = [...ms].sort((a, b) => b.is_primary - a.is_primary || a.sort_order - b.sort_order || cmp(a.collection_slug, b.collection_slug));
  const [main, ...rest] = ordered as [CreditedMembership, ...CreditedMembership[]];
  return {
    asset,
    collection: main.collection_slug,
    also_in: rest.map((m) => m.collection_slug),
    max_supply_units: main.max_supply_units,
    issued_year: main.issued_year,
    series: main.series,
    media_kind: main.media_kind,
    protocol_subtype: main.protocol_subtype,
    ...stats,
  };
}
