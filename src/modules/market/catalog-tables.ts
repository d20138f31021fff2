/** The curated catalogue: collections, artist credits and per-asset traits, replaced whole by an import. */
export interface CatalogTables {
  collections: {
    slug: string;
    name: string;
    description: string | null;
    sort_order: number;
  };
  artists: {
    id: string;
    /** Readable slug; not unique across credits (an ambiguous slug answers 404). */
    slug: string;
    name: string;
    bio: string | null;
    website: string | null;
    x_url: string | null;
    version: number;
  };
  catalog_assets: {
    asset: string;
    collection_slug: string;
    /** 1 for the asset's primary collection membership. */
    is_primary: number;
    /** Artist credit text as in the metadata; joins artists.name. */
    artist: string | null;
    max_supply_units: number | null;
    issued_year: number | null;
    series: number | null;
    media_kind: string | null;
    protocol_subtype: string | null;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends CatalogTables {}
}
