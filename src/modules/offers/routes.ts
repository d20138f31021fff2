import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { Ok, Page, errorResponses } from '../../http/envelope.js';
import { Address, Cursor, Id, Limit } from '../../http/validators.js';
import { notFound } from '../../http/errors.js';
import { sessionSecurity } from '../../http/security.js';
import { requireOwner, requireSession } from '../auth/index.js';
import { earlierPlacement, place, planPlacement, refuseOpenSlots } from './placement.js';
import { existingSlots } from './slots.js';
import { placeFunded } from './funded.js';
import { mempoolFundingInputs } from './funding-inputs.js';
import { composeFunding } from './funding-compose.js';
import { cancelOffers, cancelPlacement, reviewCancellations } from './cancel.js';
import { OfferStore } from './store.js';
import { offerView, placementResult } from './view.js';
import { CancelOutcomes, FundedOffersBody, FundingBody, FundingResult, OfferIds, OfferOut, OffersBody, PlacementResult, Review } from './schemas.js';
import { MAX_BIDS, MAX_OFFER_ROWS, MAX_TARGETS } from './rules.js';

const tags = ['offers'];
const security = sessionSecurity;

const PLACEMENT = `**Placement.** ${MAX_BIDS} bids at most × ${MAX_TARGETS} targets at most, at most ${MAX_OFFER_ROWS} offers (bids × targets; 400 invalid_request beyond). Every bid output must pay the session address (403 forbidden otherwise) and all must hold the same value: the offer price, plus 330 sats for \`delivery_mode: attached\` (the output that will carry the unit). N outputs give capacity N: the targets over one output are alternatives, and the first fill of an output retires its siblings. A bid below 5,000 sats: 422 price_below_minimum. A target is normalized as \`/v1/collections/{slug}/offer-targets\` normalizes it (400 invalid_request naming the field); an unknown collection, an unknown asset, an asset outside the named collection, or a \`target_outpoint\` that is not an unspent output holding exactly one unit of the asset: 409 target_unavailable with \`target_index\`; \`target_outpoint\` with collection scope: 400 invalid_request. Offering on your own asset outpoint or your own listing: 409 self_trade. An output that carries a Counterparty balance: 400 invalid_request (spending it would move the balance); one claimed by a settlement in flight, or already backing live offers: 409 state_changed. Two placements racing for one output: one wins, the other gets 409 state_changed and nothing is placed.

**Delivery.** \`delivery_mode\` detached (default): the unit is detached to \`receive_address\` (default the session address; any Counterparty address family). attached: one 330-sat output to \`receive_address\` (P2WPKH or P2TR) carries the unit.

**Expiry.** \`expires_at\` is the market's expiry (at most 180 days ahead; the offer reads \`expired\` after it). On Bitcoin a bid stays valid until its funding output is spent (\`signature_validity\`): cancelling at the market does not unlock the coins — spend the output to make the bid dead on chain. Until that spend confirms it can still lose: a seller holding a signed authorization can accept with a package (parent plus CPFP child) that pays more than your spend, and nodes from Bitcoin Core 28 on replace your unconfirmed spend with it (package RBF) — the trade then happens. Spend at a high fee rate and wait for a confirmation before counting the bid dead.

**Idempotency.** An identical request (same bidder, outputs, targets, expiry and delivery) answers the placement already made.`;

export function offerRoutes(app: App, ctx: Context): void {
  const store = new OfferStore(ctx.store.db);

  app.post(
    '/v1/offer-funding',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Compose the unsigned funding transaction for N bid slots',
        description:
          'Session required (P2WPKH or P2TR; 400 unsupported_address_type otherwise). Builds a version-2 PSBT whose outputs 0..slots-1 each pay the session address exactly `price_sats` (+330 sats for attached delivery) and whose last output is change, from the address\'s confirmed coins that carry no Counterparty balance, that no settlement claims and that back none of the address\'s open offers (an open bid slot, an open collection offer\'s funding), or from the coins named in `funding` (a named coin may back open offers: `ends_offers` lists the offers this transaction would end). Not enough: 422 insufficient_funds with `need_sats`, `have_sats`, `shortfall_sats`. Sign `inputs_to_sign` with ALL (P2TR DEFAULT), finalize, and POST the raw transaction to /v1/funded-offers with `bids` as returned. Reserves nothing.',
        body: FundingBody,
        response: { 200: Ok(FundingResult), ...errorResponses },
      },
    },
    async (req) => ({ result: await composeFunding(ctx, requireSession(req), req.body) }),
  );

  app.post(
    '/v1/funded-offers',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Relay a signed funding transaction and place bids over its outputs',
        description: `Session required. \`funding_tx_hex\`: the signed, finalized funding transaction; its outputs are the only authority for the bid values (a \`txid\` on a bid, when given, must be the transaction's own: 400 otherwise). Order: the bytes are checked (an unsigned input: 422 invalid_transaction; an input carrying a Counterparty balance: 400 invalid_request), the placement is rehearsed (every refusal below happens before the network sees anything), the transaction is relayed (a transaction the network already knows counts as relayed; a refusal is 409 state_changed with \`mempool_reason\` (lost to a conflicting or replacing spend), 409 conflict_spend (an input spent in the chain), 422 mempool_rejected or 422 invalid_transaction and places nothing; an unknown outcome is 502 broadcast_unknown — submit the same bytes again), then the offers are placed. The slots are then in the mempool: they can be filled once confirmed.\n\n${PLACEMENT}`,
        body: FundedOffersBody,
        response: { 200: Ok(PlacementResult), ...errorResponses },
      },
    },
    async (req) => ({ result: await placeFunded(ctx, requireSession(req), req.body) }),
  );

  app.post(
    '/v1/offers',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Place bids over existing exact-price outputs of the session address',
        description: `Session required. Each bid names an existing unspent output (confirmed, or still in the mempool: an unconfirmed slot can be placed but not filled until it confirms) of the session address; the session proves control of the address, and funding alone is not identity.\n\n${PLACEMENT}`,
        body: OffersBody,
        response: { 200: Ok(PlacementResult), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireSession(req);
      const slots = await existingSlots(ctx, me, req.body.bids);
      const plan = await planPlacement(ctx, me, req.body, slots, null);
      const earlier = await earlierPlacement(ctx, plan);
      if (earlier) return { result: earlier };
      await refuseOpenSlots(ctx, slots);
      plan.fundingInputs = await mempoolFundingInputs(ctx, slots);
      return { result: await place(ctx, plan) };
    },
  );

  app.get(
    '/v1/offer-placements/:id',
    {
      config: { limit: 'recovery_read', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'One of your placements',
        description: 'Owner only: a missing and a foreign id both answer 404. The placement result as placed (offer ids per slot); read the offers for their current status.',
        params: Type.Object({ id: Id }, { additionalProperties: false }),
        response: { 200: Ok(PlacementResult), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireSession(req);
      const p = await store.placement(req.params.id);
      if (!p || p.bidder !== me) throw notFound('offer placement');
      return { result: await placementResult(ctx.store.db, p) };
    },
  );

  app.get(
    '/v1/address/:address/offers',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: "The bidder's offers",
        description: 'Owner only (403 for another address, 401 without a session). Newest first by (created_at, id); `limit` 1 to 100 (default 50), opaque `cursor`; `status` narrows to one stored state (an `active` offer past its expiry reads `expired`).',
        params: Type.Object({ address: Address }, { additionalProperties: false }),
        querystring: Type.Object(
          {
            limit: Limit(50),
            cursor: Type.Optional(Cursor),
            status: Type.Optional(Type.Union(['active', 'filled', 'cancelled', 'expired', 'retired', 'consumed'].map((s) => Type.Literal(s)))),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(OfferOut), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireOwner(req, req.params.address);
      const route = 'address-offers';
      const filters = { me, status: req.query.status ?? null };
      const after = ctx.cursors.decode<[number, string]>(req.query.cursor, route, filters);
      const rows = await store.bidderOffers(me, req.query.limit + 1, after, req.query.status as never);
      const page = rows.slice(0, req.query.limit);
      const last = page[page.length - 1];
      const now = nowSeconds(ctx.clock);
      return {
        result: page.map((o) => offerView(o, now)),
        result_count: page.length,
        next_cursor: rows.length > req.query.limit && last ? ctx.cursors.encode(route, filters, [Number(last.created_at), last.id]) : null,
      };
    },
  );

  app.get(
    '/v1/address/:address/offer-placements',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: "The bidder's placements",
        description: 'Owner only (403 for another address, 401 without a session). Newest first; `limit` 1 to 100 (default 50), opaque `cursor`.',
        params: Type.Object({ address: Address }, { additionalProperties: false }),
        querystring: Type.Object({ limit: Limit(50), cursor: Type.Optional(Cursor) }, { additionalProperties: false }),
        response: { 200: Page(PlacementResult), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireOwner(req, req.params.address);
      const route = 'address-offer-placements';
      const after = ctx.cursors.decode<[number, string]>(req.query.cursor, route, { me });
      const rows = await store.bidderPlacements(me, req.query.limit + 1, after);
      const page = rows.slice(0, req.query.limit);
      const last = page[page.length - 1];
      return {
        result: await Promise.all(page.map((p) => placementResult(ctx.store.db, p))),
        result_count: page.length,
        next_cursor: rows.length > req.query.limit && last ? ctx.cursors.encode(route, { me }, [Number(last.created_at), last.id]) : null,
      };
    },
  );

  const cancelDoc =
    'Owner only (a missing or foreign id: 404, and nothing is changed). Per-offer outcomes in request order: `ok: false` with `code: state_changed` for an offer no longer active (filled, retired, already cancelled or expired). Cancelling ends the offers at the market; it does not unlock the funding outputs on Bitcoin (see /v1/offer-cancellations/review). Account-maintenance budget.';

  app.post(
    '/v1/offers/:id/cancel',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: { tags, security, summary: 'Cancel one offer', description: cancelDoc, params: Type.Object({ id: Id }, { additionalProperties: false }), response: { 200: Ok(CancelOutcomes), ...errorResponses } },
    },
    async (req) => ({ result: await cancelOffers(ctx, store, requireSession(req), [req.params.id]) }),
  );

  app.post(
    '/v1/offer-placements/:id/cancel',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: { tags, security, summary: 'Cancel every offer of a placement', description: cancelDoc, params: Type.Object({ id: Id }, { additionalProperties: false }), response: { 200: Ok(CancelOutcomes), ...errorResponses } },
    },
    async (req) => ({ result: await cancelPlacement(ctx, store, requireSession(req), req.params.id) }),
  );

  app.post(
    '/v1/offer-cancellations',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: { tags, security, summary: 'Cancel several offers', description: `Body \`{offer_ids}\` (1 to 1,000 distinct ids). ${cancelDoc}`, body: OfferIds, response: { 200: Ok(CancelOutcomes), ...errorResponses } },
    },
    async (req) => ({ result: await cancelOffers(ctx, store, requireSession(req), req.body.offer_ids) }),
  );

  app.post(
    '/v1/offer-cancellations/review',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Review cancelled offers: which funding outputs are still committed',
        description:
          'Read-only. Body `{offer_ids}` (1 to 1,000 distinct ids), every one the session address\'s (404 otherwise) and already cancelled (409 state_changed otherwise). `coins` lists the distinct funding outpoints of those offers; `stillCommitted` is true while a live sibling offer over the same output, or a settlement in flight, still uses it. Nothing is unlocked and no Bitcoin signature is invalidated: to make a cancelled bid dead on chain, spend its funding output.',
        body: OfferIds,
        response: { 200: Ok(Review), ...errorResponses },
      },
    },
    async (req) => ({ result: await reviewCancellations(ctx, store, requireSession(req), req.body.offer_ids) }),
  );
}
