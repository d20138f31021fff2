import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, errorResponses } from '../../http/envelope.js';
import { Limit, MAX_SATS } from '../../http/validators.js';
import { nowSeconds } from '../../clock.js';
import { CollectionSlug } from './collections-routes.js';
import { OfferTargetsService } from './offer-targets-service.js';
import { TargetListingRow } from './public-rows.js';
import { MAX_ARTIST_LENGTH } from './policy-predicate.js';

const tags = ['market'];
const BadRequest = { ...ErrorEnvelope, description: 'invalid_request: a filter that is not an integer in range, an artist over 200 characters, min_supply_units above max_supply_units, or limit outside 1..100; `field` names it' };
const NotFound = { ...ErrorEnvelope, description: 'not_found: unknown collection slug' };

const Filters = Type.Object({
  max_supply_units: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SATS, description: "assets whose curated max supply is known and at most this many units" })),
  min_supply_units: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SATS, description: "assets whose curated max supply is known and at least this many units" })),
  issued_year: Type.Optional(Type.Integer({ minimum: 0, maximum: 9999, description: 'curated issue year, equal' })),
  series: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'curated series number, equal' })),
  artist: Type.Optional(Type.String({ maxLength: MAX_ARTIST_LENGTH, description: 'artist credit, trimmed, ASCII case-insensitive equality; blank means no filter' })),
  limit: Limit(8),
});

const Reply = Type.Object(
  {
    result: Type.Array(TargetListingRow, { description: 'listed units the policy reaches, cheapest first (price, then created_at, then id)' }),
    result_count: Type.Integer({ minimum: 0, description: 'rows in `result` (at most `limit`)' }),
    matching_assets: Type.Integer({ minimum: 0, description: 'catalogue assets of the collection the policy reaches, listed or not' }),
  },
  { additionalProperties: false },
);

export function offerTargetRoutes(app: App, ctx: Context): void {
  const service = new OfferTargetsService(ctx.store.read, () => nowSeconds(ctx.clock));
  app.get(
    '/v1/collections/:slug/offer-targets',
    {
      config: { cache: { public: 30 }, limit: 'uncached_read' },
      schema: {
        tags,
        summary: 'Listed units a collection or trait offer would reach',
        description:
          'A snapshot of the currently listed asset outpoints that match a collection-scope policy on this collection with the given trait filters, evaluated by the same normalized predicate the collection-offer authorization enforces. ' +
          'Filters (all optional, combined with AND): `max_supply_units` N keeps assets whose curated max supply is known and ≤ N; `min_supply_units` N, known and ≥ N; `issued_year` and `series` are equalities; `artist` compares the credit trimmed and ASCII case-insensitively (A–Z only), blank meaning no filter. An asset lacking a trait never matches a filter on it. Traits are the curated catalogue entry of this collection. ' +
          'Only public fillable listings (active, not expired) that hold exactly one whole unit can accept a collection offer, so only those are listed: 1 raw for an indivisible asset, 100000000 raw (1.00000000) for a divisible one; an asset whose divisibility the market has not yet read from Counterparty is not listed. Rows omit `expires_at`. ' +
          '`matching_assets` counts the collection\'s catalogue assets the policy reaches, listed or not. `result_count` is the number of rows returned (at most `limit`, 1 to 100, default 8). ' +
          '400 invalid_request for a malformed or contradictory filter (min above max); 404 not_found for an unknown slug. Public; cached up to 30 seconds.',
        params: Type.Object({ slug: CollectionSlug }),
        querystring: Filters,
        response: { 200: Reply, 400: BadRequest, 404: NotFound, ...errorResponses },
      },
    },
    async (req) => {
      const { limit, ...filters } = req.query;
      return service.targets(req.params.slug, filters, limit);
    },
  );
}
