import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ErrorEnvelope, Ok, Page, errorResponses } from '../../http/envelope.js';
import { Address, Cursor, Id, Limit } from '../../http/validators.js';
import { ApiError, notFound } from '../../http/errors.js';
import { sessionSecurity as security } from '../../http/security.js';
import { requireOwner, requireSession } from '../auth/index.js';
import { authorize, MAX_AUTHORIZATION_OUTPOINTS } from './authorize.js';
import { activate } from './activate.js';
import { accept, acceptPreflight } from './accept.js';
import { acceptStatus } from './accept-status.js';
import { validateSelection } from './selection.js';
import { retireAuthorizations } from '../offers/index.js';
import { bidderView, inboxRow } from './view.js';
import { AcceptBody, AcceptPreflight, AcceptPreflightBody, AcceptResult, AcceptStatus, Activated, AuthorizeBody, BidderAuthorization, InboxRow, PsbtBody, SelectionBody, SelectionResult } from './schemas.js';
import { before } from '../../store/keyset.js';
import { sql } from 'kysely';

const tags = ['exact offers'];
const IdParams = Type.Object({ id: Id }, { additionalProperties: false });
const AddressParams = Type.Object({ address: Address }, { additionalProperties: false });
const Paging = Type.Object({ limit: Limit(50), cursor: Type.Optional(Cursor) }, { additionalProperties: false });

const LAYOUT = `**Settlement layout** (version 3, TRUC). Parent — in 0: the bidder's funding slot (signed ALL in advance by the bidder; Counterparty reads its ALL flag and keys the message with its txid); in 1: the seller's asset outpoint (signed ALL by the seller on accept; a unit on the seller's co-signed listing output is spent by its leaf: the seller signs the leaf, the market signer co-signs this exact parent when the accept is journaled, and the proceeds go to the seller's own address). out 0: detached delivery — the detach OP_RETURN naming the offer's receive address (at output 0: Counterparty ignores a message preceded by two or more address outputs); attached delivery — 330 sats to the receive address (Counterparty moves the unit to the first non-OP_RETURN output). out 1: the seller's proceeds (price + the asset output's sats − platform fee − the parent's fee). out 2: the platform fee. Child (only when the fee rate at accept needs more than the parent carries): in 0 the parent's output 1, out 0 the seller's address less the child fee. Both version 3, so neither side can pin the package; the funding slot must be confirmed before an accept (a v3 transaction cannot spend an unconfirmed non-v3 output).`;

export function exactOfferRoutes(app: App, ctx: Context): void {
  const db = ctx.store.db;

  app.post(
    '/v1/offers/:id/exact-authorizations',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Ask for exact authorizations of your offer over asset outpoints',
        description: `Session: the offer's bidder (a missing or foreign offer: 404). 1 to ${MAX_AUTHORIZATION_OUTPOINTS} outpoints, all or nothing: each must match the offer's target (the normalized predicate of /offer-targets; an exact-unit offer only its own outpoint), hold exactly one whole unit, have 3 confirmations, be a P2WPKH or P2TR output, and not be the bidder's own (409 self_trade); otherwise 409 target_unavailable with \`outpoint_index\`. Listed or merely attached units both qualify. For each, the parent is composed at \`fee_rate\` (default the half-hour estimate): \`prefunded_fee_sats\` is the fee the parent carries. Sign input 0 of each \`psbt_hex\` (ALL; P2TR DEFAULT) and POST it to /v1/exact-offer-authorizations/{id}/bidder-psbt. Market expiry: the offer's, at most 30 days. A bid below the platform fee plus the network fee at \`fee_rate\`: 422 price_below_minimum with \`minimum_price_sats\`, \`fee_rate\` and \`network_fee_sats\`.\n\n${LAYOUT}`,
        params: IdParams,
        body: AuthorizeBody,
        response: { 200: Ok(Type.Array(BidderAuthorization)), ...errorResponses },
      },
    },
    async (req) => {
      const rows = await authorize(ctx, requireSession(req), req.params.id, req.body);
      const now = nowSeconds(ctx.clock);
      return { result: rows.map((r) => bidderView(r, now)) };
    },
  );

  app.post(
    '/v1/exact-offer-authorizations/:id/bidder-psbt',
    {
      config: { limit: 'signed_completion', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: "Activate an authorization with the bidder's signature",
        description:
          "Session: the bidder (404 otherwise). Body `{psbt_hex}`: the authorization's parent with input 0 signed by the bidder, DEFAULT or ALL. Any change to the transaction or its prevouts: 422 template_mismatch; another key or sighash: 422 signature_invalid; past its expiry: 410 expired. The authorization is immutable once active; the same signature again answers the same. On Bitcoin it stays valid until the funding output is spent (`bitcoin_expires_at` null): spend the output to invalidate it, whatever the market expiry.",
        params: IdParams,
        body: PsbtBody,
        response: { 200: Ok(Activated), ...errorResponses },
      },
    },
    async (req) => ({ result: await activate(ctx, requireSession(req), req.params.id, req.body.psbt_hex) }),
  );

  app.post(
    '/v1/exact-offer-authorizations/:id/cancel',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Cancel an authorization (bidder)',
        description: 'Session: the bidder (404 otherwise). Retires an authorization that awaits its signature or is active (409 state_changed once used or retired). The market stops offering it to the seller; on Bitcoin the signed parent stays valid until the funding output is spent.',
        params: IdParams,
        response: { 200: Ok(BidderAuthorization), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireSession(req);
      const a = await db.selectFrom('exact_authorizations').selectAll().where('id', '=', req.params.id).executeTakeFirst();
      if (!a || a.bidder !== me) throw notFound('exact offer authorization');
      const now = nowSeconds(ctx.clock);
      const done = await db.transaction().execute((tx) => retireAuthorizations(tx, [a], 'cancelled', now));
      if (!done.length) throw new ApiError('state_changed', `the authorization is ${a.state}`, { state: a.state });
      const after = await db.selectFrom('exact_authorizations').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
      return { result: bidderView(after, now) };
    },
  );

  app.get(
    '/v1/address/:address/exact-authorizations',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: "The bidder's exact authorizations",
        description: 'Owner only (403 for another address, 401 without a session). Newest first; `limit` 1 to 100 (default 50), opaque `cursor`.',
        params: AddressParams,
        querystring: Paging,
        response: { 200: Page(BidderAuthorization), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireOwner(req, req.params.address);
      const route = 'exact-authorizations';
      const after = ctx.cursors.decode<[number, string]>(req.query.cursor, route, { me });
      let q = db.selectFrom('exact_authorizations').selectAll().where('bidder', '=', me);
      if (after) q = q.where(before(sql.ref('created_at'), sql.ref('id'), after));
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(req.query.limit + 1).execute();
      const page = rows.slice(0, req.query.limit);
      const last = page.at(-1);
      const now = nowSeconds(ctx.clock);
      return { result: page.map((a) => bidderView(a, now)), result_count: page.length, next_cursor: rows.length > req.query.limit && last ? ctx.cursors.encode(route, { me }, [Number(last.created_at), last.id]) : null };
    },
  );

  app.get(
    '/v1/address/:address/exact-offers',
    {
      config: { limit: 'recovery_read', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Seller inbox: live buyer-authorized offers on your units',
        description:
          "Owner only (403 for another address, 401 without a session). The active authorizations over asset outpoints the address holds, whose offer is live, newest first; `limit` 1 to 100 (default 50), opaque `cursor`. `requires_buyer_action` is true while the bidder's funding output is unconfirmed: the version-3 settlement cannot spend it until it confirms, so the accept would be refused; nothing is asked of the seller then. Accept with /v1/exact-offer-authorizations/{id}/accept-preflight and /accept. Recovery-read budget.",
        params: AddressParams,
        querystring: Paging,
        response: { 200: Page(InboxRow), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireOwner(req, req.params.address);
      const now = nowSeconds(ctx.clock);
      const route = 'exact-offers-inbox';
      const after = ctx.cursors.decode<[number, string]>(req.query.cursor, route, { me });
      let q = db
        .selectFrom('exact_authorizations as a')
        .innerJoin('offers as o', 'o.id', 'a.offer_id')
        .selectAll('a')
        .where('a.seller', '=', me)
        .where('a.state', '=', 'active')
        .where('a.expires_at', '>', now)
        .where('o.state', '=', 'active')
        .where('o.expires_at', '>', now);
      if (after) q = q.where(before(sql.ref('a.created_at'), sql.ref('a.id'), after));
      const rows = await q.orderBy('a.created_at', 'desc').orderBy('a.id', 'desc').limit(req.query.limit + 1).execute();
      const page = rows.slice(0, req.query.limit);
      const confirmed = await Promise.all(
        page.map(async (a) => {
          const [txid, vout] = a.slot_outpoint.split(':');
          const out = await ctx.chain.bitcoin.getTxOut(txid!, Number(vout), true);
          return !!out && out.confirmations >= 1;
        }),
      );
      const last = page.at(-1);
      return {
        result: page.map((a, i) => inboxRow(a, !confirmed[i])),
        result_count: page.length,
        next_cursor: rows.length > req.query.limit && last ? ctx.cursors.encode(route, { me }, [Number(last.created_at), last.id]) : null,
      };
    },
  );

  app.post(
    '/v1/exact-offer-authorizations/:id/accept-preflight',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'What to sign to accept: the parent, and a CPFP child when the fee rate needs one',
        description: `Session: the seller holding the asset outpoint (a missing and a foreign id both answer 404). Reserves nothing. \`requires_cpfp\` is true when \`fee_rate\` (default the current half-hour estimate) × the parent's vsize exceeds \`prefunded_fee_sats\`; \`cpfp\` is then the child to sign, paying \`child_fee_sats\` = ceil(fee_rate × (parent + child vsize)) − prefunded. The used or retired authorization: 409 offer_selection_unavailable; past its expiry: 410 expired. A fee rate whose child would leave the seller less than dust (the bid no longer covers the fee): 422 insufficient_funds with \`need_sats\`, \`have_sats\` (the parent's proceeds output), \`shortfall_sats\`, \`fee_rate\`, \`network_fee_sats\` and \`reason: fee_exceeds_value\`; the accept answers the same when the current rate rose that far.\n\n${LAYOUT}`,
        params: IdParams,
        body: AcceptPreflightBody,
        response: { 200: Ok(AcceptPreflight), ...errorResponses },
      },
    },
    async (req) => ({ result: await acceptPreflight(ctx, requireSession(req), req.params.id, req.body ?? {}) }),
  );

  app.post(
    '/v1/exact-offer-authorizations/:id/accept',
    {
      config: { limit: 'signed_completion', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Accept: claim, journal and submit the settlement package',
        description:
          "Session: the seller holding the asset outpoint (a missing and a foreign id both answer 404). Body `{psbt_hex, cpfp_psbt_hex?}`: the parent with the seller's signature on input 1 (ALL; P2TR DEFAULT) — the market merges the stored bidder signature — and, when the current fee rate needs more than the parent carries, the signed child (see accept-preflight). Checks: the template byte for byte (422 template_mismatch), the seller signature (422 signature_invalid), the child's shape (422 template_mismatch) and fee (422 invalid_transaction with `required_child_fee_sats`; a missing required child: 400 invalid_request with it), the funding output confirmed (409 state_changed with `requires_buyer_action: true`). Then, atomically: the offer is filled (its siblings over the funding output retire), the authorization used, the listing of the unit (if listed) reserved, and the settlement journaled with claims on the funding output and the asset outpoint — the claims checkout takes too, so the first valid signature wins: a unit already claimed by a checkout or another accept answers 409 state_changed and nothing is broadcast. For a co-signed unit the market signer co-signs input 1 inside that claim, over exactly these bytes (one decision per unit outpoint, shared with checkouts of its listing): its refusal answers 409 offer_selection_unavailable with its `refusal_code` (listing_signed_other: the unit was co-signed into another live settlement), 503 service_unavailable while it cannot be reached. Then the package is submitted (submitpackage; recovery re-relays it). Nodes judge each member alone first: when the parent (the trade, paying its prefunded fee) enters the mempool and the child is refused, the sale stands and confirms at the parent's fee — 200 with `child_state: refused` and the node's `child_reason`, recorded in the seller's feed as `exact_offer_child_refused`. A package paying more than a bidder's unconfirmed spend of the funding output replaces it (package RBF). A refusal answers 422 mempool_rejected, 409 state_changed with the node's `mempool_reason` (the package lost to a conflicting or replacing spend) or 409 conflict_spend (an input already spent in the chain), each with `claims_released: true` (a bidder who spent its funding output meanwhile wins the race on chain; the seller's feed records it as `exact_offer_accept_conflicted`); an unknown outcome 502 broadcast_unknown (the journal relays it later; do not re-sign). A refusal that only a missing confirmation causes (`mempool_policy` chain_too_long or truc: an input a reorg or a held relay left unconfirmed) is held, not released: 202 with `settlement_state: journaled` and `hold` {mempool_reason, mempool_policy, until}; the claims stay and recovery relays the same bytes again until they land, lose to a conflicting spend (released, as above) or `until` (SETTLEMENT_WAIT_HOLD_S after the accept, default an hour) passes (released; the operation read then says failed with mempool_rejected). Never sign again while held. The same bytes again: `already_completed: true` (202 while the settlement is still journaled); bytes the node already refused (the authorization is usable again after such a refusal, and without a CPFP child its parent is the same): that refusal again, nothing journaled.",
        params: IdParams,
        body: AcceptBody,
        response: { 200: Ok(AcceptResult), 202: Ok(AcceptResult), ...errorResponses },
      },
    },
    async (req, reply) => {
      const r = await accept(ctx, requireSession(req), req.params.id, req.body);
      return reply.code(r.status).send({ result: r.result });
    },
  );

  app.get(
    '/v1/exact-offer-authorizations/:id/accept',
    {
      config: { limit: 'recovery_read', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Read the saved accept (recovery)',
        description:
          "Session: the seller of the authorization (a missing and a foreign id both answer 404). The saved operation of POST …/accept, for recovery after a lost or uncertain reply (502, 503, timeout): read it before anything else and never sign again while it reads broadcasting, broadcast or confirmed. `status` not_accepted | expired | broadcasting | broadcast | confirmed | failed, the newest settlement's `txid` (the parent, the trade) and `child_txid`, and, as checkout's GET /v1/checkout/quotes/{id}, `claims_released`, `mempool_reason`, `failure_code` and `mempool_policy` when failed and `confirmations` / `block_index` when confirmed. On the recovery-read budget.",
        params: IdParams,
        response: { 200: Ok(AcceptStatus), ...errorResponses },
      },
    },
    async (req) => ({ result: await acceptStatus(ctx, requireSession(req), req.params.id) }),
  );

  app.post(
    '/v1/exact-offer-selections/validate',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Bulk selection: which chosen authorizations can be accepted together',
        description:
          'Session: the seller. Body `{authorization_ids}` (1 to 100 distinct). Two of the seller\'s chosen authorizations over the same funding slot (only one can fill): 409 duplicate_funding_slot for the whole selection, with `funding_slot_id` and the `authorization_ids` sharing it. Otherwise one answer per item in request order, nothing reserved: `ok: true`, or `code` offer_selection_unavailable (used, retired, expired, or its offer ended) or not_found (not the session\'s).',
        body: SelectionBody,
        response: { 200: Ok(SelectionResult), 409: { ...ErrorEnvelope, description: 'duplicate_funding_slot: two chosen authorizations share a funding slot' }, ...errorResponses },
      },
    },
    async (req) => ({ result: await validateSelection(ctx, requireSession(req), req.body.authorization_ids) }),
  );
}
