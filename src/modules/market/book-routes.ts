import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, Ok, errorResponses } from '../../http/envelope.js';
import { Nullable, Sats, Txid, UnixSeconds, Vout } from '../../http/validators.js';
import { nowSeconds } from '../../clock.js';
import { CollectionSlug } from './collections-routes.js';
import { BookStore } from './book-store.js';
import { BOOK_FILLS, BOOK_LEVELS, BOOK_LISTINGS_PER_LEVEL, BookService } from './book-service.js';
import { BookListingRow, FillRow } from './public-rows.js';

const tags = ['market'];
const BadRequest = { ...ErrorEnvelope, description: 'invalid_request: a slug longer than 200 characters' };
const NotFound = { ...ErrorEnvelope, description: 'not_found: unknown collection slug' };

const Kind = Type.Union([Type.Literal('asset'), Type.Literal('collection'), Type.Literal('trait')]);
const Scope = Type.Union([Type.Literal('asset'), Type.Literal('collection')]);
/** An offer target's fields as every bid-side read shows them (the book, the bidder's offers, placements). */
export const traitFields = {
  scope: Scope,
  kind: Kind,
  asset: Nullable(Type.String()),
  collection: Nullable(Type.String()),
  max_supply_units: Nullable(Type.Integer()),
  min_supply_units: Nullable(Type.Integer()),
  issued_year: Nullable(Type.Integer()),
  series: Nullable(Type.Integer()),
  artist: Nullable(Type.String()),
};

const OfferLevel = Type.Object(
  {
    price_sats: Sats({ minimum: 1 }),
    funded_slots: Type.Integer({ minimum: 1, description: 'distinct bid UTXOs within this level; shared slots can appear in several levels and are never summed across levels' }),
    ...traitFields,
  },
  { additionalProperties: false },
);

const Offer = Type.Object(
  {
    id: Type.String(),
    bidder: Type.String(),
    bid_txid: Txid,
    bid_vout: Vout,
    funding_slot_id: Type.String(),
    price_sats: Sats({ minimum: 1 }),
    ...traitFields,
    expires_at: UnixSeconds,
    created_at: UnixSeconds,
  },
  { additionalProperties: false },
);

export const OrderBook = Type.Object(
  {
    asks: Type.Array(
      Type.Object(
        {
          price_sats: Sats({ minimum: 1 }),
          depth: Type.Integer({ minimum: 1, description: 'every public fillable listing at this price, shown or not' }),
          listings: Type.Array(BookListingRow, { description: `at most ${BOOK_LISTINGS_PER_LEVEL}, oldest first (created_at, then id)` }),
        },
        { additionalProperties: false },
      ),
      { description: `price levels, cheapest first; at most ${BOOK_LEVELS}` },
    ),
    offer_levels: Type.Array(OfferLevel, { description: 'bid depth by price and target, best first: live public offers (asset offers on member assets, collection and trait offers of the collection); at most 50 levels' }),
    offers: Type.Array(Offer, { description: 'individual live public offers, best price first then oldest; at most 100. Exact-unit offers (target_outpoint) are private and never shown' }),
    fills: Type.Array(FillRow, { description: `the ${BOOK_FILLS} most recent fills of the member assets, newest first (broadcast_at, then id); pending and confirmed, never dropped` }),
    top_collection_offer_sats: Nullable(Sats({ minimum: 1 })),
    best_offer_sats: Nullable(Sats({ minimum: 1 })),
    listings_truncated: Type.Boolean({ description: `true when more than ${BOOK_LEVELS} price levels exist or a shown level holds more than ${BOOK_LISTINGS_PER_LEVEL} listings` }),
    offer_levels_truncated: Type.Boolean(),
    offers_truncated: Type.Boolean(),
  },
  { additionalProperties: false },
);

export function bookRoutes(app: App, ctx: Context): void {
  const service = new BookService(new BookStore(ctx.store.read), () => nowSeconds(ctx.clock));
  app.get(
    '/v1/collections/:slug/book',
    {
      config: { cache: { public: 30 }, limit: 'uncached_read' },
      schema: {
        tags,
        summary: 'Order book of a collection',
        description:
          `The asks of the collection's member assets (primary and secondary memberships), grouped by price, cheapest first. Only public fillable listings appear: active and not past \`expires_at\`; pending, reserved, sold, ended and expired listings never do, and no PSBT or signature is ever shown. ` +
          `Bounded: at most ${BOOK_LEVELS} price levels and ${BOOK_LISTINGS_PER_LEVEL} listings per level (oldest first, then id); \`depth\` still counts every listing at the level, and \`listings_truncated\` is true when anything was left out (more levels, or a level deeper than its listings). ` +
          `\`asset_longname\` is display only and null until the market's balance view has read the asset; \`media_kind\` comes from the curated catalogue entry for this collection; \`protocol_subtype\` is the listing's kind (\`plain\` or \`cosigned\`: see ListingProtocolSubtype for what each protects against). ` +
          `\`fills\`: the ${BOOK_FILLS} most recent sales of member assets, pending (confirmed_at null) and confirmed; dropped settlements never appear. ` +
          `The offer side: \`offer_levels\` (price, target; \`funded_slots\` counts distinct funding outputs within a level, never summed across levels), \`offers\`, \`top_collection_offer_sats\` (best collection or trait offer), \`best_offer_sats\` (best of all). ` +
          `404 not_found for an unknown slug. Public; cached up to 30 seconds, so a sale can take that long (plus the indexer's 2 to 3 minutes) to leave the book.`,
        params: Type.Object({ slug: CollectionSlug }),
        response: { 200: Ok(OrderBook), 400: BadRequest, 404: NotFound, ...errorResponses },
      },
    },
    async (req) => ({ result: await service.book(req.params.slug) }),
  );
}
