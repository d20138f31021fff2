/** The record of artist profile edits (who, when, what changed); read by the operator's `artist-edits` command. */
export interface ArtistEditTables {
  artist_profile_edits: {
    id: string;
    artist_id: string;
    /** The artist's credit at the time (the id is a hash of it). */
    artist_name: string;
    /** The profile version this edit produced. */
    version: number;
    /** Session address of the editor. */
    editor: string;
    /** JSON: why the editor was eligible, e.g. `{"catalogue_editor":false,"issued_assets":["PEPE"]}`. */
    grounds: string;
    /** JSON: `{field: {from, to}}` for each changed field. */
    changes: string;
    /** Unix seconds. */
    edited_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends ArtistEditTables {}
}
