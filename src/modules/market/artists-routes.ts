import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, Ok, Page, errorResponses } from '../../http/envelope.js';
import { invalid } from '../../http/errors.js';
import { Limit, Nullable, Sats } from '../../http/validators.js';
import { nowSeconds } from '../../clock.js';
import { ArtistsStore } from './artists-store.js';
import { ArtistsService, type ArtistsPosition } from './artists-service.js';
import { ListingStatsReader } from './listing-stats.js';
import { CollectionSlug } from './collections-routes.js';

const tags = ['market'];
const BadRequest = { ...ErrorEnvelope, description: 'invalid_request: a parameter out of range or a cursor not issued for this route and these filters' };
const NotFound = { ...ErrorEnvelope, description: 'not_found: unknown or ambiguous artist key' };
const ROUTE = '/v1/artists';
const ASSETS_ROUTE = '/v1/artists/:key/assets';

const CREDITS =
  'An artist is an effective credit: a curated artist, or an artist credit text found in the catalogue metadata that no curated artist carries. Credits do not verify artist identity: anyone can put any name in metadata.';
const LISTING_FIGURES =
  '`listed` counts public fillable listings and `floor_sats` is the lowest such ask (null when none); pending, private, reserved, ended and expired listings are excluded.';
const PAGING = 'To page, pass `next_cursor` back as `cursor` unchanged and keep every other query parameter the same; a cursor replayed with other filters is 400 invalid_request. `next_cursor` is null on the last page.';

const PageCursor = Type.String({ maxLength: 200, description: 'opaque cursor from next_cursor, at most 200 characters' });
const Query = Type.String({ maxLength: 200, description: 'substring, ASCII case-insensitive, at most 200 characters' });
export const ArtistKey = Type.String({
  minLength: 1,
  maxLength: 201,
  description: 'artist key: a readable slug, or `~` followed by the exact URL-encoded metadata credit (as returned in `key`; at most 201 characters)',
});
const Key = Type.String({ description: 'Path key of the artist: its readable slug when one curated artist has it, else `~` + the URL-encoded credit. Use it as the path segment as it is.' });
const Figures = {
  listed: Type.Integer({ minimum: 0, description: 'Public fillable listings' }),
  floor_sats: Nullable(Sats({ minimum: 1, description: 'Lowest public fillable ask, sats; null when nothing is listed' })),
};
const CuratedId = Nullable(Type.String({ description: 'Curated artist id; null for a credit with no curated profile' }));
const Curated = Type.Boolean({ description: 'true when a curated artist profile carries this name' });

export const ArtistRow = Type.Object(
  {
    key: Key,
    id: CuratedId,
    name: Type.String({ description: 'Display name (the credit text for an uncurated credit)' }),
    curated: Curated,
    artworks: Type.Integer({ minimum: 0, description: 'Distinct credited assets; an asset in several collections counts once' }),
    ...Figures,
  },
  { additionalProperties: false },
);

export const ArtistDetail = Type.Object(
  {
    name: Type.String(),
    key: Key,
    assets: Type.Integer({ minimum: 0, description: 'Distinct credited assets' }),
    ...Figures,
    collections: Type.Array(
      Type.Object({ slug: Type.String(), name: Type.String(), assets: Type.Integer({ minimum: 1, description: 'Credited assets in this collection' }) }, { additionalProperties: false }),
      { description: 'Collections holding credited assets, in catalogue order; an asset in two collections counts in each' },
    ),
    id: CuratedId,
    curated: Curated,
    bio: Nullable(Type.String()),
    website: Nullable(Type.String()),
    x_url: Nullable(Type.String()),
    version: Nullable(Type.Integer({ description: 'Version marker of the curated artist record; null for an uncurated credit' })),
  },
  { additionalProperties: false },
);

export const ArtistAssetRow = Type.Object(
  {
    asset: Type.String({ description: 'Canonical compact asset id' }),
    collection: Type.String({ description: 'Primary collection (else the first in catalogue order)' }),
    also_in: Type.Array(Type.String(), { description: 'Other collections holding the asset' }),
    max_supply_units: Nullable(Type.Integer()),
    issued_year: Nullable(Type.Integer()),
    series: Nullable(Type.Integer()),
    media_kind: Nullable(Type.String({ description: 'image, animation, video, html or svg' })),
    protocol_subtype: Nullable(Type.String()),
    ...Figures,
  },
  { additionalProperties: false },
);

const isArtistsPosition = (p: unknown): p is ArtistsPosition =>
  Array.isArray(p) && p.length === 3 && Number.isInteger(p[0]) && typeof p[1] === 'string' && typeof p[2] === 'string';
const badCursor = () => invalid('cursor is not valid for this route and these filters', { field: 'query.cursor' });
const blankToUndefined = (s: string | undefined) => (s === undefined || s === '' ? undefined : s);

export const artistsServiceOf = (ctx: Context) =>
  new ArtistsService(new ArtistsStore(ctx.store.read), new ListingStatsReader(ctx.store.read, () => nowSeconds(ctx.clock)));

export function artistRoutes(app: App, ctx: Context): void {
  const service = artistsServiceOf(ctx);
  const config = { cache: { public: 30 }, limit: 'uncached_read' } as const;
  const KeyParams = Type.Object({ key: ArtistKey });

  app.get(
    ROUTE,
    {
      config,
      schema: {
        tags,
        summary: 'Artists: effective artist credits',
        description: `${CREDITS} Curated corrections apply: a curated artist's row carries its profile id and slug key. \`q\` matches a substring of the display name (ASCII case-insensitive); \`letter\` keeps names whose first character is that letter (A–Z, either case), or \`#\` (send it as %23) for digits, symbols and letters outside A–Z. \`sort=name\` (default) orders by name, ASCII case-insensitive; \`sort=artworks\` by distinct credited artworks, most first, ties by name then id. \`artworks\` counts distinct assets (an asset in several collections counts once). ${LISTING_FIGURES} \`limit\` 1 to 100 (default 50). ${PAGING} Public; cached up to 30 seconds.`,
        querystring: Type.Object(
          {
            limit: Limit(50),
            cursor: Type.Optional(PageCursor),
            q: Type.Optional({ ...Query, description: 'display name substring, ASCII case-insensitive, at most 200 characters' }),
            letter: Type.Optional(Type.String({ pattern: '^([A-Z]|#)?$', description: 'one capital letter A–Z or # (first character of the display name)' })),
            sort: Type.Union([Type.Literal('name'), Type.Literal('artworks')], { default: 'name', description: '`name` (default) or `artworks`' }),
          },
          { description: 'Unknown query parameters are ignored (they neither fail nor change the cache key).' },
        ),
        // The spec lists 404 for this read: a cursor is bound to its route and filters, and one naming a
        // position past every artist still reads an empty page, so 404 is only the unknown-path answer.
        response: { 200: Page(ArtistRow), 400: BadRequest, 404: { ...NotFound, description: 'not_found: a path under /v1/artists that names no route' }, ...errorResponses },
      },
    },
    async (req) => {
      const filters = { q: blankToUndefined(req.query.q), letter: blankToUndefined(req.query.letter), sort: req.query.sort };
      const after = ctx.cursors.decode<unknown>(req.query.cursor, ROUTE, filters);
      if (after !== undefined && !isArtistsPosition(after)) throw badCursor();
      const { rows, next } = await service.page(filters, req.query.limit, after);
      return { result: rows, result_count: rows.length, next_cursor: next ? ctx.cursors.encode(ROUTE, filters, next) : null };
    },
  );

  app.get(
    `${ROUTE}/:key`,
    {
      config,
      schema: {
        tags,
        summary: 'One artist',
        description: `${CREDITS} \`key\` is a readable slug or \`~\` + the exact URL-encoded metadata credit, as returned in \`key\` by the list. A slug two curated artists share is ambiguous and answers 404 not_found (use their \`~\` keys); an unknown key answers 404. \`assets\` counts distinct credited assets; \`collections\` lists where they are. ${LISTING_FIGURES} \`id\`, \`bio\`, \`website\`, \`x_url\` and \`version\` come from the curated profile and are null for an uncurated credit; \`version\` moves with every profile change (an edit by an eligible address through PATCH /v1/artists/{key}/profile, or a catalogue import), and \`name\` is the edited display name where the catalogue allows one. Profile fields are plain text: escape them when rendering. Public; cached up to 30 seconds, so an edit shows here within 30 seconds.`,
        params: KeyParams,
        response: { 200: Ok(ArtistDetail), 400: BadRequest, 404: NotFound, ...errorResponses },
      },
    },
    async (req) => ({ result: await service.detail(req.params.key) }),
  );

  app.get(
    ASSETS_ROUTE,
    {
      config,
      schema: {
        tags,
        summary: "An artist's credited assets",
        description: `Distinct assets credited to the artist, sorted by asset name; an asset in several collections appears once, with its primary collection as \`collection\` and the others in \`also_in\`. Filters apply to the artist's whole catalogue before paging: \`q\` (asset name substring, ASCII case-insensitive), \`collection\` (assets with any membership in that slug; an unknown slug gives an empty page) and \`listed=1\` (only assets with a public fillable listing; default \`0\`, all). ${LISTING_FIGURES} \`limit\` 1 to 100 (default 40). ${PAGING} 404 not_found for an unknown or ambiguous key. Public; cached up to 30 seconds.`,
        params: KeyParams,
        querystring: Type.Object(
          {
            limit: Limit(40),
            cursor: Type.Optional(PageCursor),
            q: Type.Optional({ ...Query, description: 'asset name substring, ASCII case-insensitive, at most 200 characters' }),
            collection: Type.Optional(CollectionSlug),
            listed: Type.Union([Type.Literal('0'), Type.Literal('1')], { default: '0', description: '`1`: only assets with a public fillable listing; `0` (default): all' }),
          },
          { description: 'Unknown query parameters are ignored (they neither fail nor change the cache key).' },
        ),
        response: { 200: Page(ArtistAssetRow), 400: BadRequest, 404: NotFound, ...errorResponses },
      },
    },
    async (req) => {
      const { key } = req.params;
      const filters = { key, q: blankToUndefined(req.query.q), collection: req.query.collection, listed: req.query.listed };
      const after = ctx.cursors.decode<unknown>(req.query.cursor, ASSETS_ROUTE, filters);
      if (after !== undefined && typeof after !== 'string') throw badCursor();
      const { rows, next } = await service.assets(key, { q: filters.q, collection: filters.collection, listed: filters.listed === '1' }, req.query.limit, after);
      return { result: rows, result_count: rows.length, next_cursor: next ? ctx.cursors.encode(ASSETS_ROUTE, filters, next) : null };
    },
  );
}
