import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { AssetId, Nullable, Sats, UnixSeconds } from '../../http/validators.js';
import { nowSeconds } from '../../clock.js';
import { bestOffer } from './best-offer.js';

const BestOfferResult = Type.Object(
  {
    asset: Type.String(),
    best_offer_sats: Nullable(Sats({ minimum: 1 })),
    offer: Nullable(
      Type.Object({
        id: Type.String(),
        bidder: Type.String(),
        price_sats: Sats({ minimum: 1 }),
        scope: Type.String(),
        kind: Type.String({ description: 'asset, collection or trait' }),
        collection: Nullable(Type.String()),
        expires_at: UnixSeconds,
        created_at: UnixSeconds,
      }),
    ),
    live_offers: Type.Integer({ minimum: 0, description: 'live public offers that reach the asset' }),
  },
  { additionalProperties: false },
);

export function bestOfferRoutes(app: App, ctx: Context): void {
  app.get(
    '/v1/assets/:asset/best-offer',
    {
      config: { cache: { public: 30 }, limit: 'uncached_read' },
      schema: {
        tags: ['market'],
        summary: 'The best live offer that could buy one unit of an asset',
        description:
          "Public; cached up to 30 seconds. Reads the live public offers that reach the asset: its asset offers, and the collection and trait offers of its curated collections whose policy the asset matches (the predicate of /offer-targets). The best is the highest price, then the oldest. Exact-unit offers are private to the unit's holder and not counted. `best_offer_sats` is the bid's price: the accepting seller pays the platform fee and the network fee out of it. An asset nobody bids on answers `best_offer_sats: null`.",
        params: Type.Object({ asset: AssetId }, { additionalProperties: false }),
        response: { 200: Ok(BestOfferResult), ...errorResponses },
      },
    },
    async (req) => ({ result: await bestOffer(ctx.store.read, req.params.asset, nowSeconds(ctx.clock)) }),
  );
}
