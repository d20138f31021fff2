import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, Ok, errorResponses } from '../../http/envelope.js';
import { Limit, Nullable } from '../../http/validators.js';
import { CollectionSlug } from './collections-routes.js';
import { ASSETS_PER_HOLDER, HoldersService, MAX_HOLDERS } from './holders-service.js';

const tags = ['market'];
const BadRequest = { ...ErrorEnvelope, description: 'invalid_request: limit outside 1..100 or a slug over 200 characters' };
const NotFound = { ...ErrorEnvelope, description: 'not_found: unknown collection slug' };

const HoldersSummary = Type.Object(
  {
    holders: Type.Array(
      Type.Object(
        {
          address: Type.String({ description: 'owner address (an attached balance counts for the address that owns its UTXO)' }),
          edition_units: Type.Number({ minimum: 1, description: "whole units held across the collection's assets, detached and UTXO-attached together" }),
          percent_collected: Type.Number({ minimum: 0, maximum: 100, description: 'distinct_assets / collection_assets × 100, rounded to two decimals' }),
          distinct_assets: Type.Integer({ minimum: 1, description: 'collection assets of which the holder has at least one whole unit' }),
          assets: Type.Array(Type.String(), { maxItems: ASSETS_PER_HOLDER, description: `up to ${ASSETS_PER_HOLDER} of those assets, most units first, then by name` }),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_HOLDERS, description: `most edition units first, then most distinct assets, then address; at most ${MAX_HOLDERS}` },
    ),
    holder_count: Type.Integer({ minimum: 0, description: 'addresses holding at least one whole unit of a collection asset' }),
    total_edition_units: Type.Number({ minimum: 0, description: 'whole units held across all holders' }),
    collection_assets: Type.Integer({ minimum: 0, description: 'catalogue assets of the collection' }),
    indexed_assets: Type.Integer({ minimum: 0, description: 'of those, assets whose balances the market has read and that no reorg has made stale since' }),
    as_of_event_index: Nullable(Type.Integer({ minimum: 0, description: 'the highest Counterparty event index the balance view reflects; null before the indexer has read a block' })),
  },
  { additionalProperties: false },
);

export function holderRoutes(app: App, ctx: Context): void {
  const service = new HoldersService(ctx.store.read);
  app.get(
    '/v1/collections/:slug/holders',
    {
      config: { cache: { public: 30 }, limit: 'uncached_read' },
      schema: {
        tags,
        summary: 'Holders of a collection',
        description:
          "Who holds the collection's catalogue assets, from the market's copy of Counterparty balances (refreshed by the indexer for every asset a block's Counterparty events touch, so it lags the chain like every market read; see Freshness). " +
          '`edition_units` counts whole units across the holder\'s detached (address) and UTXO-attached balances (an attached balance counts for the address that owns the UTXO); the raw amounts of one asset are summed before dividing by the unit (1 raw indivisible, 100000000 raw divisible), and fractions below a whole unit are not counted. An address with no whole unit is not a holder. ' +
          '`percent_collected` = distinct_assets / collection_assets × 100, rounded to two decimals. ' +
          `\`limit\` is accepted from 1 to 100 (default 50) but \`holders\` never has more than ${MAX_HOLDERS} items: a larger limit is clamped to ${MAX_HOLDERS}. ` +
          '`indexed_assets` tells how much of the collection the view covers yet (assets held before the market started are read in batches as blocks arrive); `as_of_event_index` is the highest Counterparty event index reflected. ' +
          '404 not_found for an unknown slug. Public; cached up to 30 seconds.',
        params: Type.Object({ slug: CollectionSlug }),
        querystring: Type.Object({ limit: Limit(50) }),
        response: { 200: Ok(HoldersSummary), 400: BadRequest, 404: NotFound, ...errorResponses },
      },
    },
    async (req) => ({ result: await service.holders(req.params.slug, req.query.limit) }),
  );
}
