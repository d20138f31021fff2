import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, Ok, Page, errorResponses } from '../../http/envelope.js';
import { invalid } from '../../http/errors.js';
import { Cursor, Limit, Nullable, Sats } from '../../http/validators.js';
import { nowSeconds } from '../../clock.js';
import { CollectionsService, type CollectionsPosition } from './collections-service.js';
import { ListingStatsReader } from './listing-stats.js';

const tags = ['market'];
const BadRequest = { ...ErrorEnvelope, description: 'invalid_request: a parameter out of range or a cursor not issued for this route and these filters' };
const NotFound = { ...ErrorEnvelope, description: 'not_found: unknown collection slug' };

export const CollectionSlug = Type.String({ minLength: 1, maxLength: 200, description: 'collection slug, 1 to 200 characters' });

const LISTING_FIGURES =
  '`listed` counts public fillable listings of the member assets (pending, private, reserved, ended and expired listings never count); `floor_sats` is the lowest such ask, null when nothing is listed.';

const collectionFields = {
  slug: CollectionSlug,
  name: Type.String(),
  description: Nullable(Type.String()),
  assets: Type.Integer({ minimum: 0, description: 'Curated member assets, primary and secondary memberships alike' }),
  listed: Type.Integer({ minimum: 0, description: 'Public fillable listings of the member assets' }),
  floor_sats: Nullable(Sats({ minimum: 1, description: 'Lowest public fillable ask, sats; null when nothing is listed' })),
};

export const CollectionRow = Type.Object(collectionFields, { additionalProperties: false });

const Trait = <T extends ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>>(value: T, what: string) =>
  Type.Array(Type.Object({ value, assets: Type.Integer({ minimum: 1, description: 'Member assets with this value' }) }, { additionalProperties: false }), {
    description: what,
  });

export const CollectionDetail = Type.Object(
  {
    ...collectionFields,
    traits: Type.Object(
      {
        issued_year: Trait(Type.Integer(), 'Distinct issue years, ascending'),
        series: Trait(Type.Integer(), 'Distinct series numbers, ascending'),
        artist: Trait(Type.String(), 'Distinct artist credit texts as in the metadata, by name (ASCII case-insensitive); a credit does not verify identity'),
        media_kind: Trait(Type.String(), 'Distinct media kinds: image, animation, video, html, svg'),
      },
      {
        additionalProperties: false,
        description: 'Trait values present among the member assets, each with its asset count; the same values the offer-target filters take.',
      },
    ),
  },
  { additionalProperties: false },
);

const ROUTE = '/v1/collections';

const isPosition = (p: unknown): p is CollectionsPosition =>
  Array.isArray(p) && p.length === 2 && Number.isInteger(p[0]) && typeof p[1] === 'string';

export function collectionRoutes(app: App, ctx: Context): void {
  const service = new CollectionsService(ctx.store.read, new ListingStatsReader(ctx.store.read, () => nowSeconds(ctx.clock)));

  app.get(
    ROUTE,
    {
      config: { cache: { public: 30 }, limit: 'uncached_read' },
      schema: {
        tags,
        summary: 'Curated collections',
        description: `Paged list of the curated collections in catalogue order. \`limit\` 1 to 100 (default 50). To page, pass \`next_cursor\` back as \`cursor\` unchanged; it is null on the last page. \`assets\` counts member assets; ${LISTING_FIGURES} Public; cached up to 30 seconds.`,
        querystring: Type.Object({ limit: Limit(50), cursor: Type.Optional(Cursor) }),
        response: { 200: Page(CollectionRow), 400: BadRequest, ...errorResponses },
      },
    },
    async (req) => {
      const { limit, cursor } = req.query;
      const after = ctx.cursors.decode<unknown>(cursor, ROUTE, {});
      if (after !== undefined && !isPosition(after)) throw invalid('cursor is not valid for this route and these filters', { field: 'query.cursor' });
      const { rows, next } = await service.page(limit, after);
      return { result: rows, result_count: rows.length, next_cursor: next ? ctx.cursors.encode(ROUTE, {}, next) : null };
    },
  );

  app.get(
    `${ROUTE}/:slug`,
    {
      config: { cache: { public: 30 }, limit: 'uncached_read' },
      schema: {
        tags,
        summary: 'One curated collection with its trait summary',
        description: `The collection's figures as in the list, plus the distinct trait values of its member assets (issue year, series, artist credit, media kind) with their asset counts. ${LISTING_FIGURES} 404 not_found for an unknown slug. Public; cached up to 30 seconds.`,
        params: Type.Object({ slug: CollectionSlug }),
        response: { 200: Ok(CollectionDetail), 400: BadRequest, 404: NotFound, ...errorResponses },
      },
    },
    async (req) => ({ result: await service.detail(req.params.slug) }),
  );
}
