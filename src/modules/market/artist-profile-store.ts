import crypto from 'node:crypto';
import type { Db } from '../../store/db.js';
import type { ArtistEditTables } from './artist-edit-tables.js';

/** The profile columns an edit writes (`name` is the display name, stored as `display_name`). */
export interface ProfileValues {
  bio: string | null;
  website: string | null;
  x_url: string | null;
  display_name: string | null;
}

export interface ProfileEdit {
  artistId: string;
  artistName: string;
  /** The version the editor read; the write happens only if it is still current. */
  fromVersion: number;
  values: ProfileValues;
  editor: string;
  grounds: { catalogue_editor: boolean; issued_assets: string[] };
  changes: Record<string, { from: string | null; to: string | null }>;
  at: number;
}

export type EditRecord = Omit<ArtistEditTables['artist_profile_edits'], 'grounds' | 'changes'> & {
  grounds: ProfileEdit['grounds'];
  changes: ProfileEdit['changes'];
};

/** SQL of artist profile edits: eligibility lists, the guarded write with its record, the record. */
export class ArtistProfileStore {
  constructor(private readonly db: Db) {}

  /** Whether the operator named `address` an editor of the artist in the catalogue. */
  async isCatalogueEditor(artistId: string, address: string): Promise<boolean> {
    const row = await this.db.selectFrom('artist_editors').select('address').where('artist_id', '=', artistId).where('address', '=', address).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * One guarded UPDATE (the version the editor read must still be current) and the edit's
   * record, in one transaction: both or neither. Returns the new version, or null when another
   * edit (or a catalogue import) moved the version first.
   */
  async apply(e: ProfileEdit): Promise<number | null> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx
        .updateTable('artists')
        .set({ ...e.values, version: e.fromVersion + 1, edited_at: e.at })
        .where('id', '=', e.artistId)
        .where('version', '=', e.fromVersion)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return null;
      await tx
        .insertInto('artist_profile_edits')
        .values({
          id: `ape_${crypto.randomBytes(12).toString('hex')}`,
          artist_id: e.artistId,
          artist_name: e.artistName,
          version: e.fromVersion + 1,
          editor: e.editor,
          grounds: JSON.stringify(e.grounds),
          changes: JSON.stringify(e.changes),
          edited_at: e.at,
        })
        .execute();
      return e.fromVersion + 1;
    });
  }

  /** The current version of an artist's profile; null when the artist is gone. */
  async version(artistId: string): Promise<number | null> {
    const row = await this.db.selectFrom('artists').select('version').where('id', '=', artistId).executeTakeFirst();
    return row ? Number(row.version) : null;
  }

  /** The edit record, newest first; optionally of one artist and from a time on. */
  async edits(f: { artistId?: string; since?: number; limit: number }): Promise<EditRecord[]> {
    let q = this.db.selectFrom('artist_profile_edits').selectAll();
    if (f.artistId !== undefined) q = q.where('artist_id', '=', f.artistId);
    if (f.since !== undefined) q = q.where('edited_at', '>=', f.since);
    const rows = await q.orderBy('edited_at', 'desc').orderBy('version', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
    return rows.map((r) => ({
      ...r,
      version: Number(r.version),
      edited_at: Number(r.edited_at),
      grounds: JSON.parse(r.grounds) as EditRecord['grounds'],
      changes: JSON.parse(r.changes) as EditRecord['changes'],
    }));
  }
}
