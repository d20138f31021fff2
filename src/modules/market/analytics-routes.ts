import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { Nullable, Sats, Txid, UnixSeconds } from '../../http/validators.js';
import { nowSeconds } from '../../clock.js';
import { AnalyticsService, DEPTH_LEVELS, SALE_KINDS, TOP_SALES, WINDOW_DAYS } from './analytics-service.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

const Snapshot = Type.Object(
  {
    as_of: UnixSeconds,
    since: Type.Integer({ description: `as_of − ${WINDOW_DAYS} days (unix seconds): start of the sales window` }),
    market: Type.Object(
      {
        listings: Count('public fillable listings now'),
        asking_value_sats: Sats({ description: 'sum of their asks' }),
        sellers: Count('distinct seller addresses among them'),
        open_offers: Count('open offers, once per shared funding slot (0 until offers are live)'),
        bidders: Count('distinct bidder addresses (0 until offers are live)'),
      },
      { additionalProperties: false },
    ),
    sales: Type.Object(
      {
        volume_sats: Sats({ description: 'sum of sale prices' }),
        sales: Count('units sold (fills)'),
        transactions: Count('distinct settlement transactions (txids)'),
        buyers: Count('distinct buyer (delivery) addresses'),
        sellers: Count('distinct seller addresses'),
      },
      { additionalProperties: false },
    ),
    daily: Type.Array(
      Type.Object({ day: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'UTC date' }), volume_sats: Sats(), sales: Count('units sold that day') }, { additionalProperties: false }),
      { description: `every UTC day from the day of since to the day of as_of, ascending, zero-filled (${WINDOW_DAYS + 1} entries; the first and last are partial days)` },
    ),
    depth: Type.Array(
      Type.Object({ price_sats: Sats({ minimum: 1 }), listings: Count('public fillable listings at this price'), offers: Count('open offers at this price, each funding slot once at its maximum price (0 until offers are live)') }, { additionalProperties: false }),
      { description: `price levels, cheapest first, at most ${DEPTH_LEVELS}` },
    ),
    sale_types: Type.Array(
      Type.Object({ kind: Type.Union(SALE_KINDS.map((k) => Type.Literal(k))), volume_sats: Sats(), sales: Count('units sold') }, { additionalProperties: false }),
      { description: 'one row per sale kind, always both: `listing` (checkout of a listing) then `offer` (an accepted offer)' },
    ),
    top_sales: Type.Array(
      Type.Object(
        { txid: Txid, ref_id: Type.String(), asset: Type.String(), asset_longname: Nullable(Type.String()), price_sats: Sats({ minimum: 1 }), buyer: Type.String(), seller: Type.String(), broadcast_at: UnixSeconds },
        { additionalProperties: false },
      ),
      { description: `the ${TOP_SALES} largest sales, highest price first, then newest` },
    ),
  },
  { additionalProperties: false },
);

export function analyticsRoutes(app: App, ctx: Context): void {
  const service = new AnalyticsService(ctx.store.read, () => nowSeconds(ctx.clock));
  app.get(
    '/v1/analytics',
    {
      config: { cache: { public: 60 }, limit: 'uncached_read' },
      schema: {
        tags: ['market'],
        summary: 'Market analytics snapshot',
        description:
          `A market-wide snapshot. \`market\` and \`depth\` cover the current public fillable listings (active, not expired; pending, reserved and private listings never count). ` +
          `\`sales\`, \`daily\`, \`sale_types\` and \`top_sales\` cover confirmed fills broadcast in the trailing ${WINDOW_DAYS} days (since ≤ broadcast_at ≤ as_of): pending sales are not counted until their block is indexed, dropped ones never. Buyers and sellers count unique addresses; a sale's buyer is the address that received the asset. ` +
          `\`daily\` is zero-filled: one entry per UTC day from since's day to as_of's day. \`depth\` lists at most ${DEPTH_LEVELS} price levels, cheapest first. Offer figures are 0 until offers are live. Public; cached 60 seconds.`,
        response: { 200: Ok(Snapshot), ...errorResponses },
      },
    },
    async () => ({ result: await service.snapshot() }),
  );
}
