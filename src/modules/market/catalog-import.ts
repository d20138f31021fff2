import fs from 'node:fs';
import crypto from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Context } from '../../context.js';
import type { Db } from '../../store/db.js';
import { AssetId } from '../../http/validators.js';

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
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom('catalog_assets').execute();
    await tx.deleteFrom('collections').execute();
    await tx.deleteFrom('artists').execute();
    let order = 0;
    for (const c of file.collections) {
      await tx.insertInto('collections').values({ slug: c.slug, name: c.name, description: c.description ?? null, sort_order: order++ }).execute();
    }
    for (const a of file.artists) {
      const id = crypto.createHash('sha256').update(a.name).digest('hex').slice(0, 16);
      await tx
        .insertInto('artists')
        .values({ id, slug: a.slug ?? slugify(a.name), name: a.name, bio: a.bio ?? null, website: a.website ?? null, x_url: a.x_url ?? null, version: 1 })
        .execute();
    }
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

export async function importCatalogFile(ctx: Context, path: string) {
  return importCatalog(ctx.store.db, JSON.parse(fs.readFileSync(path, 'utf8')));
}
