import fs from 'node:fs';
import crypto from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Context } from '../../context.js';
import type { Db, Tx } from '../../store/db.js';
import { Address, AssetId } from '../../http/validators.js';

const Slug = Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 200 });
const MediaKind = Type.Union(['image', 'animation', 'video', 'html', 'svg'].map((k) => Type.Literal(k)));

export const CatalogFile = Type.Object({
  collections: Type.Array(Type.Object({ slug: Slug, name: Type.String({ minLength: 1 }), description: Type.Optional(Type.String()) })),
  artists: Type.Array(
    Type.Object({
      name: Type.String({ minLength: 1, maxLength: 200 }),
      slug: Type.Optional(Slug),
      bio: Type.Optional(Type.String()),
      website: Type.Optional(Type.String()),
      x_url: Type.Optional(Type.String()),
      /** Lets eligible editors change the display name (the credit itself never changes). */
      name_editable: Type.Optional(Type.Boolean()),
      /** Addresses that may edit this artist's profile besides the issuers of its credited assets. */
      editors: Type.Optional(Type.Array(Address, { maxItems: 50 })),
    }),
  ),
  assets: Type.Array(
    Type.Object({
      asset: AssetId,
      collection: Slug,
      also_in: Type.Optional(Type.Array(Slug)),
      artist: Type.Optional(Type.String({ maxLength: 200 })),
      max_supply_units: Type.Optional(Type.Integer({ minimum: 1 })),
      issued_year: Type.Optional(Type.Integer({ minimum: 2009, maximum: 2100 })),
      series: Type.Optional(Type.Integer({ minimum: 0 })),
      media_kind: Type.Optional(MediaKind),
      protocol_subtype: Type.Optional(Type.String()),
    }),
  ),
});
export type CatalogFile = Static<typeof CatalogFile>;

export const slugify = (s: string) =>
  s
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'artist';

/** Replaces the whole curated catalogue in one transaction; a bad file changes nothing. */
export async function importCatalog(db: Db, file: unknown): Promise<{ collections: number; assets: number; artists: number }> {
  if (!Value.Check(CatalogFile, file)) {
    const first = [...Value.Errors(CatalogFile, file)][0];
    throw new Error(`catalogue file is invalid at ${first?.path ?? '/'}: ${first?.message ?? 'bad shape'}`);
  }
  const slugs = new Set(file.collections.map((c) => c.slug));
  for (const a of file.assets) {
    for (const s of [a.collection, ...(a.also_in ?? [])]) if (!slugs.has(s)) throw new Error(`asset ${a.asset} names unknown collection ${s}`);
  }
  const names = new Set<string>();
  for (const a of file.artists) {
    if (names.has(a.name)) throw new Error(`artist ${a.name} is listed twice`);
    names.add(a.name);
  }
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom('catalog_assets').execute();
    await tx.deleteFrom('collections').execute();
    let order = 0;
    for (const c of file.collections) {
      await tx.insertInto('collections').values({ slug: c.slug, name: c.name, description: c.description ?? null, sort_order: order++ }).execute();
    }
    await replaceArtists(tx, file.artists);
    for (const a of file.assets) {
      for (const [i, slug] of [a.collection, ...(a.also_in ?? [])].entries()) {
        await tx
          .insertInto('catalog_assets')
          .values({
            asset: a.asset,
            collection_slug: slug,
            is_primary: i === 0 ? 1 : 0,
            artist: a.artist ?? null,
            max_supply_units: a.max_supply_units ?? null,
            issued_year: a.issued_year ?? null,
            series: a.series ?? null,
            media_kind: a.media_kind ?? null,
            protocol_subtype: a.protocol_subtype ?? null,
          })
          .execute();
      }
    }
  });
  return { collections: file.collections.length, assets: file.assets.length, artists: file.artists.length };
}

type FileArtist = CatalogFile['artists'][number];

export const artistIdOf = (name: string) => crypto.createHash('sha256').update(name).digest('hex').slice(0, 16);

/**
 * Artists are matched by id (a hash of the credit), not deleted and re-added, so a profile keeps
 * its `version` across imports. A profile an editor has changed (`edited_at` set) keeps the
 * edited bio, website and x_url: the artist's own words are not overwritten by a catalogue
 * refresh. An unedited profile takes the file's, and its version moves when they differ (or
 * when the name permission changes). The edited display name survives only while the
 * catalogue still allows name edits. Artists no
 * longer in the file are removed (their edit record stays).
 */
async function replaceArtists(tx: Tx, artists: FileArtist[]): Promise<void> {
  const existing = new Map((await tx.selectFrom('artists').selectAll().execute()).map((r) => [r.id, r]));
  const ids = artists.map((a) => artistIdOf(a.name));
  await tx.deleteFrom('artist_editors').execute();
  const gone = [...existing.keys()].filter((id) => !ids.includes(id));
  if (gone.length) await tx.deleteFrom('artists').where('id', 'in', gone).execute();
  for (const [i, a] of artists.entries()) {
    const id = ids[i]!;
    const nameEditable = a.name_editable === true ? 1 : 0;
    const profile = { bio: a.bio ?? null, website: a.website ?? null, x_url: a.x_url ?? null };
    const old = existing.get(id);
    if (!old) {
      await tx.insertInto('artists').values({ id, slug: a.slug ?? slugify(a.name), name: a.name, ...profile, version: 1, name_editable: nameEditable, display_name: null, edited_at: null }).execute();
    } else {
      const kept = old.edited_at !== null ? { bio: old.bio, website: old.website, x_url: old.x_url } : profile;
      const displayName = nameEditable ? old.display_name : null;
      // The name permission counts as a change too: an edit read under the old permission must not write under the new one.
      const changed =
        kept.bio !== old.bio || kept.website !== old.website || kept.x_url !== old.x_url || displayName !== old.display_name || nameEditable !== Number(old.name_editable);
      // Guarded on the version read above: an edit committed meanwhile fails the import (run it
      // again) instead of being overwritten under a version number its editor already holds.
      const r = await tx
        .updateTable('artists')
        .set({ slug: a.slug ?? slugify(a.name), ...kept, display_name: displayName, name_editable: nameEditable, version: Number(old.version) + (changed ? 1 : 0) })
        .where('id', '=', id)
        .where('version', '=', old.version)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) throw new Error(`artist ${a.name} was edited during the import; nothing was imported, run it again`);
    }
    for (const address of new Set(a.editors ?? [])) await tx.insertInto('artist_editors').values({ artist_id: id, address }).execute();
  }
}

export async function importCatalogFile(ctx: Context, path: string) {
  return importCatalog(ctx.store.db, JSON.parse(fs.readFileSync(path, 'utf8')));
}
