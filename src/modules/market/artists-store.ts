import type { Db } from '../../store/db.js';
import type { CatalogTables } from './catalog-tables.js';

/** A curated artist row (the catalogue's `artists` table). */
export type CuratedArtist = CatalogTables['artists'];

/** One credit text of catalog_assets.artist with its distinct asset count. */
export interface CreditCount {
  credit: string;
  artworks: number;
}

/** One collection membership of an asset a credit names, with the collection's name and order. */
export interface CreditedMembership {
  asset: string;
  collection_slug: string;
  collection_name: string;
  sort_order: number;
  is_primary: number;
  max_supply_units: number | null;
  issued_year: number | null;
  series: number | null;
  media_kind: string | null;
  protocol_subtype: string | null;
}

const ARTIST_COLUMNS = ['id', 'slug', 'name', 'bio', 'website', 'x_url', 'version', 'name_editable', 'display_name', 'edited_at'] as const;

const toCurated = (r: CuratedArtist): CuratedArtist => ({
  ...r,
  version: Number(r.version),
  name_editable: Number(r.name_editable),
  edited_at: r.edited_at === null ? null : Number(r.edited_at),
});

/** What collectors see as the artist's name: the edited display name, else the credit. */
export const displayNameOf = (a: Pick<CuratedArtist, 'name' | 'display_name'>): string => a.display_name ?? a.name;

/** SQL of the artist reads; the rules (effective credits, keys, order) live in artists-service.ts. */
export class ArtistsStore {
  constructor(private readonly db: Db) {}

  async curated(): Promise<CuratedArtist[]> {
    const rows = await this.db.selectFrom('artists').select(ARTIST_COLUMNS).execute();
    return rows.map(toCurated);
  }

  async curatedBySlug(slug: string): Promise<CuratedArtist[]> {
    const rows = await this.db.selectFrom('artists').select(ARTIST_COLUMNS).where('slug', '=', slug).limit(2).execute();
    return rows.map(toCurated);
  }

  async curatedByName(name: string): Promise<CuratedArtist | undefined> {
    const row = await this.db.selectFrom('artists').select(ARTIST_COLUMNS).where('name', '=', name).executeTakeFirst();
    return row ? toCurated(row) : undefined;
  }

  /** Every non-empty credit with how many distinct assets it names (an asset in two collections counts once). */
  async creditCounts(): Promise<CreditCount[]> {
    const rows = await this.db
      .selectFrom('catalog_assets')
      .select('artist')
      .select((eb) => eb.fn.count<number>('asset').distinct().as('artworks'))
      .where('artist', 'is not', null)
      .where('artist', '<>', '')
      .groupBy('artist')
      .execute();
    return rows.map((r) => ({ credit: r.artist ?? '', artworks: Number(r.artworks) }));
  }

  async creditExists(credit: string): Promise<boolean> {
    const row = await this.db.selectFrom('catalog_assets').select('asset').where('artist', '=', credit).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** The memberships that credit `credit`, every collection of every such asset. */
  async memberships(credit: string): Promise<CreditedMembership[]> {
    const rows = await this.db
      .selectFrom('catalog_assets as ca')
      .innerJoin('collections as c', 'c.slug', 'ca.collection_slug')
      .select([
        'ca.asset',
        'ca.collection_slug',
        'c.name as collection_name',
        'c.sort_order',
        'ca.is_primary',
        'ca.max_supply_units',
        'ca.issued_year',
        'ca.series',
        'ca.media_kind',
        'ca.protocol_subtype',
      ])
      .where('ca.artist', '=', credit)
      .execute();
    const num = (v: number | null) => (v === null ? null : Number(v));
    return rows.map((r) => ({
      ...r,
      sort_order: Number(r.sort_order),
      is_primary: Number(r.is_primary),
      max_supply_units: num(r.max_supply_units),
      issued_year: num(r.issued_year),
      series: num(r.series),
    }));
  }
}
