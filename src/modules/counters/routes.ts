import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { Ok, Page, errorResponses } from '../../http/envelope.js';
import { Address, Cursor, Id, Limit, Outpoint, Sats, UnixSeconds } from '../../http/validators.js';
import { ApiError, notFound } from '../../http/errors.js';
import { sessionSecurity as security } from '../../http/security.js';
import { requireOwner, requireSession } from '../auth/index.js';
import { counterOffer, counterRow, counterStatus, COUNTER_STEP_SATS } from './service.js';
import { withdrawCounter } from '../offers/index.js';
import { before } from '../../store/keyset.js';
import { sql } from 'kysely';

const tags = ['counters'];

const CounterRow = Type.Object({
  id: Type.String(),
  asset: Type.String(),
  seller: Type.String(),
  counter_of: Type.String({ description: 'the offer countered' }),
  price_sats: Sats(),
  offer_price_sats: Sats(),
  target_outpoint: Outpoint,
  expires_at: UnixSeconds,
  created_at: UnixSeconds,
});

const CounterBody = Type.Object(
  {
    asset_outpoint: Outpoint,
    price_sats: Sats({ minimum: 1, description: `above the offer in whole ${COUNTER_STEP_SATS}-sat steps` }),
    expires_at: Type.Integer({ minimum: 0, maximum: 4_102_444_800, description: 'the counter\'s expiry (at most 30 days ahead)' }),
  },
  { additionalProperties: false },
);

export function counterRoutes(app: App, ctx: Context): void {
  const db = ctx.store.db;

  app.post(
    '/v1/offers/:id/counters',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Counter a bid on your unit with a higher price',
        description: `Session: the holder of \`asset_outpoint\` (403 forbidden otherwise; an outpoint that is no longer unspent — sold, moved, reorganized away — 409 state_changed with \`outpoint\`), an attached unit holding exactly one whole unit the offer reaches (409 target_unavailable otherwise). \`price_sats\` must beat the offer in whole ${COUNTER_STEP_SATS}-sat steps (422 counter_price_invalid with \`minimum_counter_sats\`). Countering your own offer: 409 self_trade. Counters are private to the two addresses: never in public reads or analytics. The bidder sees it at GET /v1/address/{address}/counters and takes it by funding a slot at the counter price and placing an offer with \`target_outpoint\` = the counter's unit (POST /v1/funded-offers or /v1/offers): that placement takes the counter and consumes the original offer (offer_consumed_by_counter); the bidder then authorizes the new offer and the seller accepts it as any bid. A counter past its expiry answers 410 expired when taken.`,
        params: Type.Object({ id: Id }, { additionalProperties: false }),
        body: CounterBody,
        response: { 200: Ok(CounterRow), ...errorResponses },
      },
    },
    async (req) => ({ result: counterRow(await counterOffer(ctx, requireSession(req), req.params.id, req.body)) }),
  );

  app.post(
    '/v1/counters/:id/withdraw',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Withdraw your counter',
        description: 'Session: the seller who made it (404 otherwise). 409 state_changed once taken or withdrawn.',
        params: Type.Object({ id: Id }, { additionalProperties: false }),
        response: { 200: Ok(Type.Object({ id: Type.String(), status: Type.Literal('withdrawn') })), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireSession(req);
      const c = await db.selectFrom('offer_counters').selectAll().where('id', '=', req.params.id).executeTakeFirst();
      if (!c || c.seller !== me) throw notFound('counter');
      const ok = await db.transaction().execute((tx) => withdrawCounter(tx, c.id, nowSeconds(ctx.clock)));
      if (!ok) throw new ApiError('state_changed', `the counter is ${counterStatus(c, nowSeconds(ctx.clock))}`);
      return { result: { id: c.id, status: 'withdrawn' as const } };
    },
  );

  app.get(
    '/v1/address/:address/counters',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Counters made to the bidder',
        description: 'Owner only (403 for another address, 401 without a session). Live counters made to the address\'s offers, newest first: active, not past expiry, and over a unit still unspent as far as the market knows (a unit a checkout or an accept of this market takes leaves at once; one its holder moves leaves when that spend confirms, and comes back if a reorg undoes the spend). `limit` 1 to 100 (default 50), opaque `cursor`.',
        params: Type.Object({ address: Address }, { additionalProperties: false }),
        querystring: Type.Object({ limit: Limit(50), cursor: Type.Optional(Cursor) }, { additionalProperties: false }),
        response: { 200: Page(CounterRow), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireOwner(req, req.params.address);
      const now = nowSeconds(ctx.clock);
      const route = 'counters';
      const after = ctx.cursors.decode<[number, string]>(req.query.cursor, route, { me });
      // A unit the market's own settlement spends (a checkout, an accept) leaves at once, before its
      // block: its outpoint is claimed. Any other spend retires the counter at its block (watcher.ts).
      let q = db
        .selectFrom('offer_counters')
        .selectAll()
        .where('bidder', '=', me)
        .where('state', '=', 'active')
        .where('expires_at', '>', now)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('outpoint_claims').select('outpoint_claims.outpoint').whereRef('outpoint_claims.outpoint', '=', 'offer_counters.asset_outpoint'))));
      if (after) q = q.where(before(sql.ref('created_at'), sql.ref('id'), after));
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(req.query.limit + 1).execute();
      const page = rows.slice(0, req.query.limit);
      const last = page.at(-1);
      return { result: page.map(counterRow), result_count: page.length, next_cursor: rows.length > req.query.limit && last ? ctx.cursors.encode(route, { me }, [Number(last.created_at), last.id]) : null };
    },
  );
}
