import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { Ok, Page, errorResponses } from '../../http/envelope.js';
import { Address, AssetId, Cursor, Id, Limit } from '../../http/validators.js';
import { sessionSecurity as security } from '../../http/security.js';
import { requireOwner, requireSession } from '../auth/index.js';
import { accept, acceptPreflight } from './accept.js';
import { acceptStatus } from './accept-status.js';
import { cancelTransaction, softCancel } from './cancel.js';
import { place } from './place.js';
import { preflight } from './preflight.js';
import { ipBucketId } from '../../limits/ip-key.js';
import { releasePreflight } from './holds.js';
import { offerStatus } from './view.js';
import { assetOffers, bidderOffers, cancelledAlternatives, fundingSetRecord, viewOffers } from './reads.js';
import { poolCounts } from './anchor-pool.js';
import { SignerGate } from './signer-gate.js';
import type { MarketWallet } from './market-wallet.js';
import { AcceptStatus } from './schemas.js';
import {
  AcceptBody,
  AcceptPreflightBody,
  AcceptQuote,
  AcceptRecord,
  CancelledParent,
  CancelTxBody,
  CancelTxResult,
  Capacity,
  FundingSetOut,
  PolicyOfferOut,
  PolicyPlaceBody,
  PolicyPreflightBody,
  PolicyPreflightResult,
  SoftCancelBody,
  SoftCancelResult,
} from './schemas.js';
import { CANCEL_MESSAGE_PREFIX, MAX_ALTERNATIVES, MAX_FUNDING_INPUTS, MAX_OPEN_FUNDING_SETS } from './rules.js';

/** The bounds on anchors held by unplaced preflights (holds.ts). */
const HOLDS = `**Anchor holds.** One bidder address holds at most ANCHOR_HOLDS_PER_ADDRESS (default 2) anchors through unplaced preflights: its next preflight releases its oldest (which then answers 410 expired on placement). The unplaced preflights from one IP (IPv6: its /64) hold at most ANCHOR_HOLDS_PER_IP (default 4), whatever addresses signed in: beyond, 429 rate_limited with \`reason: anchor_holds_per_ip\` and Retry-After (until its oldest hold lapses) — place, release (POST /v1/policy-offers/preflights/{id}/release) or let one lapse. The pool refills to ANCHOR_POOL_SIZE free anchors as anchors are reserved.`;
const tags = ['collection offers'];
const IdParams = Type.Object({ id: Id }, { additionalProperties: false });
const Paging = Type.Object({ limit: Limit(50), cursor: Type.Optional(Cursor) }, { additionalProperties: false });

const DOWN = 'Needs the market signer: 503 service_unavailable when it cannot be reached.';
/** The routes that use the market wallet (market-wallet.ts: one key per market). */
const WALLET = 'Uses the market wallet: 503 service_unavailable on an instance whose wallet key file is not the market\'s (every instance must share one).';

const LAYOUT = `**Protocol \`funded_policy_offer_v1\`.** Parent (version 3, zero fee, held by the market until a seller accepts): in 0..n−1 the bidder's funding (at most ${MAX_FUNDING_INPUTS} confirmed, asset-free SegWit coins, signed ALL/DEFAULT at placement), in n one market anchor (signed by the market wallet only when an accept is journaled); out 0 the escrow (\`max price + 330\` sats, taproot, NUMS internal key, leaves \`<bidder> CHECKSIGVERIFY <market> CHECKSIG\` and \`<csv> CSV DROP <bidder> CHECKSIG\`), out 1 the anchor back to the market wallet, out 2 the bidder's change. Child (version 3, one per accept): in 0 the escrow with witness [market signature (DEFAULT, so Counterparty reads ALL on input 0), bidder pre-signature (SINGLE|ANYONECANPAY), leaf, control], in 1 the seller's unit; out 0 \`330 + (max price − price)\` sats to the bidder's delivery address — the child carries no message, so Counterparty moves the unit there, and the bidder's own signature commits to it; out 1 the seller; out 2 the platform fee. Parent and child are submitted as one TRUC package; the seller pays the platform fee and the whole package fee. Refusals: 422/409 policy_offer_refused with \`refusal_code\` (the error envelope's \`refusal_code\` enum).`;

export function policyOfferRoutes(app: App, ctx: Context, wallet: () => Promise<MarketWallet>): void {
  const gate = new SignerGate(ctx);

  app.post(
    '/v1/policy-offers/preflight',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Preflight a collection offer: the parent to sign and one child template per alternative',
        description: `Session required (P2WPKH or P2TR). Body: 1 to ${MAX_ALTERNATIVES} alternatives (asset, collection or trait policies, each with its price), \`bidder_pubkey\` (the key for the escrow leaves), optional \`funding\` (at most ${MAX_FUNDING_INPUTS} coins; default the session's confirmed asset-free coins, largest first), \`delivery_address\` (default the session address; SegWit or taproot — the unit arrives on a 330-sat output), \`expires_at\`. Reserves one anchor for 15 minutes: none free is 503 offer_capacity_full (retry shortly; the pool refills itself). ${HOLDS} ${MAX_OPEN_FUNDING_SETS} open funding sets per address: the next is 409 open_offer_limit. Not enough funding: 422 insufficient_funds. Sign the parent's \`inputs_to_sign\` and pre-sign every alternative's \`child_template\` input 0 with SINGLE|ANYONECANPAY over the accept leaf, then POST /v1/policy-offers. ${DOWN} ${WALLET}\n\n${LAYOUT}`,
        body: PolicyPreflightBody,
        response: { 200: Ok(PolicyPreflightResult), ...errorResponses },
      },
    },
    async (req) => ({ result: await preflight(ctx, gate, await wallet(), requireSession(req), req.body, ipBucketId(req.ip)) }),
  );

  app.post(
    '/v1/policy-offers',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Place a collection offer: signed parent inputs and one pre-signature per alternative',
        description: `Session required (the preflight's bidder; another's set is 404). \`parent_psbt_hex\`: the preflight's parent with the bidder's signatures on its funding inputs (checked against the template byte for byte: 422 template_mismatch; a bad signature 422 signature_invalid). \`presignatures\`: one per alternative, as \`signature_hex\` or the signed \`psbt_hex\` of its template; each must be the bidder key's SINGLE|ANYONECANPAY signature over that alternative's digest (422 policy_offer_refused: presignature_missing, presignature_invalid, presignature_sighash). Everything verifies before anything is written; then every alternative goes live at once. An identical repeat answers the same record (idempotent); other bytes for a placed set: 409 state_changed. After the preflight expired: 410 expired. ${DOWN}`,
        body: PolicyPlaceBody,
        response: { 200: Ok(FundingSetOut), ...errorResponses },
      },
    },
    async (req) => {
      const { set } = await place(ctx, gate, requireSession(req), req.body);
      return { result: await fundingSetRecord(ctx, set, nowSeconds(ctx.clock)) };
    },
  );

  app.get(
    '/v1/policy-offers/capacity',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        tags,
        summary: 'The anchor pool: how many collection-offer funding sets can be placed now',
        description: `Public. \`free\` confirmed anchors can back a preflight now; \`pending\` wait for their refill to confirm. ${DOWN} ${WALLET}`,
        response: { 200: Ok(Capacity), ...errorResponses },
      },
    },
    async () => {
      await gate.require();
      const c = await poolCounts(ctx);
      return { result: { free: c.free, pending: c.pending, reserved: c.reserved, retired: c.retired + c.sweeping, pool_size: ctx.config.ANCHOR_POOL_SIZE, anchor_value_sats: ctx.config.ANCHOR_VALUE_SATS, market_wallet_address: (await wallet()).address } };
    },
  );

  app.get(
    '/v1/policy-offers/cancelled',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        tags,
        summary: 'Soft-cancelled collection-offer alternatives, with the market signer\'s receipts',
        description: `Public, newest first; \`limit\` 1 to 100 (default 50), opaque \`cursor\`. Every alternative (\`offer_id\` over its \`parent_txid\`) whose soft cancel the signer recorded, with \`recorded_at\` and the receipt signed by the market key over the parent txid, the offer id and \`recorded_at\` (message \`counterparty-marketplace policy-offer cancel receipt\\n<parent_txid>\\n<offer_id>\\n<recorded_at>\`; a parent cancelled whole before cancels named one alternative: \`...receipt\\n<parent_txid>\\n<recorded_at>\`): anyone can check the market never co-signed a cancelled alternative (a child spending the parent with that alternative's delivery output would prove misconduct). Its siblings may still be live and filled. ${DOWN}`,
        querystring: Paging,
        response: { 200: Page(CancelledParent), ...errorResponses },
      },
    },
    async (req) => {
      await gate.require();
      const route = 'policy-cancelled';
      const after = ctx.cursors.decode<[number, string]>(req.query.cursor, route, {});
      const rows = await cancelledAlternatives(ctx, req.query.limit + 1, after);
      const now = nowSeconds(ctx.clock);
      const page = rows.slice(0, req.query.limit);
      const last = page[page.length - 1];
      return {
        result: page.map((o) => {
          const c = JSON.parse(o.cancel_json!) as { recorded_at: number; receipt: never };
          return { parent_txid: o.parent_txid, offer_id: o.id, funding_set_id: o.funding_set_id, bidder: o.bidder, recorded_at: c.recorded_at, receipt: c.receipt ?? null, status: offerStatus(o, now) };
        }),
        result_count: page.length,
        next_cursor: rows.length > req.query.limit && last ? ctx.cursors.encode(route, {}, [Number(last.created_at), last.id]) : null,
      };
    },
  );

  app.post(
    '/v1/policy-offers/:id/cancel',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Soft-cancel one collection-offer alternative (the market signer never co-signs it from then on)',
        description: `Session required; \`id\` the alternative to cancel, an offer id (po_…) of the session's (404 otherwise, and for a funding set id pf_…: cancel each alternative, or spend the funding with /cancel-transaction). Body \`{address, signature}\`: \`address\` the bidder address, \`signature\` a BIP-322 simple signature (base64) over \`${CANCEL_MESSAGE_PREFIX}\\n<parent_txid>\` (422 signature_invalid otherwise: a message signature, not a sign-in proof, so it never asks for a new session).

Why the signature names the parent and the path names the alternative: the message is the specification's fixed text, so every wallet that signs it stays unchanged; signing it proves the signer controls the funding every alternative of the set spends. Which alternative to refuse comes from the path, with the bidder's session required. A replayed signature can therefore only cancel more of the same bidder's offers on that parent (never place, accept or co-sign anything), and only by someone holding the bidder's session. The market signer verifies the signature itself and records a refusal of this alternative (parent txid + offer id).

The signer decides cancel versus co-sign in one linearized step: \`cancelled: true\` with \`recorded_at\` (its clock at the first recorded cancellation of this alternative) and a \`receipt\` signed by the market key over \`counterparty-marketplace policy-offer cancel receipt\\n<parent_txid>\\n<offer_id>\\n<recorded_at>\` — or \`already_signed: true\` when an acceptance co-signature was released first for this parent (only spending a funding input can still stop it: see /cancel-transaction). The other alternatives stay on the book and acceptable; the funding set keeps its anchor while any is live. \`funding_cancelled\` is true once every alternative of the set is cancelled: then the set ends and its anchor is swept with the next batch. Repeats answer the same decision. ${DOWN}`,
        params: IdParams,
        body: SoftCancelBody,
        response: { 200: Ok(SoftCancelResult), ...errorResponses },
      },
    },
    async (req) => ({ result: await softCancel(ctx, gate, requireSession(req), req.params.id, req.body) }),
  );

  app.post(
    '/v1/policy-offers/:id/cancel-transaction',
    {
      // The body's one field is optional, so the body is too (no body, an empty one or `{}`).
      config: { limit: 'expensive_write', cache: 'no-store', optionalBody: true },
      schema: {
        tags,
        security,
        summary: 'Hard cancel: the unsigned self-send of every still-unspent funding input',
        description: `Session required (the bidder's offer). A version-2 PSBT spending every funding input still unspent back to the bidder address, less the fee at \`fee_rate\` (default the market's estimate). Sign and broadcast it yourself. Until it confirms it can still lose: an accept package (the held parent and a seller's child) paying more replaces it on nodes from Bitcoin Core 28 on (package RBF), and the fill stands; a soft cancel recorded first is what stops new accepts. Once mined, every alternative of the funding set dies on chain and reads \`invalid\` (a soft-cancelled one turns from collection_offer_cancelled to collection_offer_retired). Every input already spent: 409 state_changed. A fee that would leave the output below dust: 422 insufficient_funds with \`need_sats\`, \`have_sats\`, \`shortfall_sats\`, \`fee_rate\`, \`network_fee_sats\` and \`reason: fee_exceeds_value\` (use a lower fee_rate or wait). ${DOWN}`,
        params: IdParams,
        body: CancelTxBody,
        response: { 200: Ok(CancelTxResult), ...errorResponses },
      },
    },
    async (req) => ({ result: await cancelTransaction(ctx, gate, requireSession(req), req.params.id, req.body) }),
  );

  app.post(
    '/v1/policy-offers/preflights/:id/release',
    {
      config: { limit: 'account_maintenance', cache: 'no-store', optionalBody: true },
      schema: {
        tags,
        security,
        summary: 'Release an unplaced preflight: its anchor is free again at once',
        description: `Session required (the preflight's bidder; another's or a missing id: 404). \`id\`: the preflight's \`funding_set_id\`. An unplaced preflight holds one anchor for 15 minutes; releasing it gives the anchor back now, and the preflight can no longer be placed (410 expired). Again on a released or lapsed preflight: \`released: false\`. A placed set: 409 state_changed (cancel it instead). ${HOLDS}`,
        params: IdParams,
        response: { 200: Ok(Type.Object({ funding_set_id: Type.String(), state: Type.Literal('lapsed'), released: Type.Boolean() })), ...errorResponses },
      },
    },
    async (req) => ({ result: await releasePreflight(ctx, requireSession(req), req.params.id) }),
  );

  app.get(
    '/v1/address/:address/policy-offers',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: "The bidder's collection offers",
        description: `Owner only (403 for another address, 401 without a session). Newest first by (created_at, id); \`limit\` 1 to 100 (default 50), opaque \`cursor\`. ${DOWN}`,
        params: Type.Object({ address: Address }, { additionalProperties: false }),
        querystring: Paging,
        response: { 200: Page(PolicyOfferOut), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireOwner(req, req.params.address);
      await gate.require();
      const route = 'address-policy-offers';
      const after = ctx.cursors.decode<[number, string]>(req.query.cursor, route, { me });
      const rows = await bidderOffers(ctx, me, req.query.limit + 1, after);
      const page = rows.slice(0, req.query.limit);
      const last = page[page.length - 1];
      return {
        result: await viewOffers(ctx, page, nowSeconds(ctx.clock)),
        result_count: page.length,
        next_cursor: rows.length > req.query.limit && last ? ctx.cursors.encode(route, { me }, [Number(last.created_at), last.id]) : null,
      };
    },
  );

  app.get(
    '/v1/assets/:asset/policy-offers',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        tags,
        summary: 'Live collection offers an asset matches, best price first',
        description: `Public. \`asset\` a canonical compact asset id (never a longname). Every live alternative the asset matches: asset-scope ones, and the collection and trait policies of its curated collections (the predicate of /offer-targets); best price first (at most 100), each with the estimated seller net at the current fee rate. ${DOWN}`,
        params: Type.Object({ asset: AssetId }, { additionalProperties: false }),
        response: { 200: Ok(Type.Array(PolicyOfferOut)), ...errorResponses },
      },
    },
    async (req) => {
      await gate.require();
      return { result: await assetOffers(ctx, req.params.asset, nowSeconds(ctx.clock)) };
    },
  );

  app.post(
    '/v1/policy-accepts/preflight',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Quote the acceptance of a collection offer with one of your units',
        description: `Session required. The unit \`asset_txid:asset_vout\` must be an attached, confirmed UTXO of the session address, or of its co-signed listing output (inventory custody \`cosigned\`), holding exactly one whole unit of one asset (listed or merely prepared); the best live alternative of the parent's funding set that the asset matches is chosen. Builds the unsigned version-3 child (a co-signed unit's input 1 carries \`tap_leaf_script\` and no internal key: sign that leaf with your key; the proceeds go to your address); the seller pays the platform fee and the whole package fee (\`network_fee_sats\`); \`seller_min_net_sats\` refuses a quote below it (policy_offer_refused seller_net_below_minimum). A fee rate at which the platform fee and the package fee leave the seller nothing: 422 insufficient_funds with \`need_sats\`, \`have_sats\`, \`shortfall_sats\`, \`fee_rate\`, \`network_fee_sats\` and \`reason: fee_exceeds_value\` (use a lower fee_rate or wait). Sign input 1 (\`signing\`) and POST /v1/policy-accepts within \`expires_at\`. Reserves nothing. The transaction layouts: see POST /v1/policy-offers/preflight. ${DOWN}`,
        body: AcceptPreflightBody,
        response: { 200: Ok(AcceptQuote), ...errorResponses },
      },
    },
    async (req) => ({ result: await acceptPreflight(ctx, gate, requireSession(req), req.body) }),
  );

  app.post(
    '/v1/policy-accepts',
    {
      config: { limit: 'signed_completion', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Accept a collection offer: co-signed, journaled and submitted as a package',
        description: `Session required (the quote's seller). \`psbt_hex\`: the quoted child with the seller's input-1 signature (DEFAULT/ALL), verified byte for byte against the quote. The funding set and the unit's outpoint (and its listing) are claimed atomically with the claims checkout and exact accepts take: the first valid signature wins (a loser: 409 state_changed or 409 policy_offer_refused funding_set_closed). The market signer co-signs only with the claims held and never after a recorded soft cancel (409 policy_offer_refused parent_cancelled); a co-signed unit's leaf is co-signed after the escrow, over the same child, under the unit's one decision shared with checkouts and exact accepts (409 policy_offer_refused listing_signed_other when another live settlement holds it). Parent and child are journaled before they are submitted as one package: 200 with the acceptance record, or 202 while recovery still relays it (\`settlement_state: journaled\`). A refusal that only a missing confirmation causes (\`mempool_policy\` chain_too_long or truc: an input a reorg or a held relay left unconfirmed) is held, not released: 202 with \`settlement_state: journaled\` and \`hold\` {mempool_reason, mempool_policy, until}; the claims stay and recovery relays the same bytes again until they land, lose to a conflicting spend (released: the funding set ends, as on any refusal after the co-signature) or \`until\` (SETTLEMENT_WAIT_HOLD_S after the accept, default an hour) passes (released; the operation read then says failed with mempool_rejected). Never sign again while held. A unit whose confirmation a reorg undid since the quote is 409 policy_offer_refused unit_unconfirmed, with nothing claimed: submit the same bytes again once it confirms. The same bytes again answer the same record (\`already_completed: true\`; 202 while still journaled), or, once the settlement was released, the refusal it ended with (\`claims_released: true\`). ${DOWN} ${WALLET}`,
        body: AcceptBody,
        response: { 200: Ok(AcceptRecord), 202: Ok(AcceptRecord), ...errorResponses },
      },
    },
    async (req, reply) => {
      const r = await accept(ctx, gate, await wallet(), requireSession(req), req.body);
      return reply.code(r.status).send({ result: r.result });
    },
  );

  app.get(
    '/v1/policy-accepts/:id',
    {
      config: { limit: 'recovery_read', cache: 'no-store' },
      schema: {
        tags,
        security,
        summary: 'Read the saved accept of a collection offer (recovery)',
        description:
          "Session: the quote's seller (a missing and a foreign id both answer 404). The saved operation of POST /v1/policy-accepts, for recovery after a lost or uncertain reply (502, 503, timeout): read it before anything else and never sign again while it reads broadcasting, broadcast or confirmed. `status` quoted | expired | broadcasting | broadcast | confirmed | failed, the package's `parent_txid` and `txid` (the child, the trade), and, as checkout's GET /v1/checkout/quotes/{id}, `claims_released`, `mempool_reason`, `failure_code` and `mempool_policy` when failed and `confirmations` / `block_index` when confirmed. Request a new accept quote only once it reads expired or failed. On the recovery-read budget.",
        params: IdParams,
        response: { 200: Ok(AcceptStatus), ...errorResponses },
      },
    },
    async (req) => ({ result: await acceptStatus(ctx, requireSession(req), req.params.id) }),
  );
}
