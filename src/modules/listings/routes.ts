import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, Page, errorResponses } from '../../http/envelope.js';
import { ownedOr404, requireOwner, requireSession } from '../auth/index.js';
import { listingMaintenanceRoutes } from './listing-routes.js';
import { discardDraft, setDraftPrice } from './draft-maint.js';
import { ListingStore } from './store.js';
import { PreflightService } from './preflight.js';
import { AttachTemplateBody, Draft, FinalizedListing, IdParams, Price, PreflightBody, PsbtHex } from './schemas.js';
import { DRAFT_TTL_S } from './rules.js';
import { AttachSubmission } from './attach-submit.js';
import { finalizedListing, submitListing } from './listing-submit.js';
import { Type } from '@sinclair/typebox';
import { sessionSecurity } from '../../http/security.js';
import { Address, Cursor, Limit, UnixSeconds } from '../../http/validators.js';
import { nowSeconds } from '../../clock.js';
import { draftView } from './draft-view.js';

const tags = ['listings'];

const DRAFT_DOC = `
Statuses: \`awaiting_attach_signature\` (next_action sign_attach) → \`broadcasting\` (signed attach journaled, being relayed) → \`awaiting_indexer\` (relayed; the indexer confirms and verifies it, about every 2 minutes) → \`ready\` (listing preflight: sign the listing) or \`prepared\` (attach template) → \`completed\` (a listing exists; listing_id set). \`failed\` (the attach was refused by the node or found invalid by Counterparty; last_error says why; terminal: next_action is null and the balance is free for a new preflight). Read-time only: \`expired\` (an unsigned attach past expires_at, ${DRAFT_TTL_S / 60} minutes after creation) and \`withdrawn\` (a reorg reopened the attach of a completed draft; its listing ended invalid; next_action list_again: list again with a new preflight). A reopened draft's attach is verified again when it confirms again: found invalid by Counterparty, the draft turns \`failed\` with last_error (a listing sold in between cannot deliver its unit; the market logs it for the operator). A draft that gets a listing while \`awaiting_indexer\` keeps that status until the indexer verifies the attach. \`listing_status\` is the listing's own state (pending, active, reserved, sold, ended with \`listing_end_reason\` owner|expired|invalid|rotated; expiry derived at read time; \`exposed\` when a checkout carrying its signed half reached the network and failed: \`listing_exposure\` {reason, at} says why, the listing is off the book and the unit waits for a rotation), kept apart from \`status\`; \`listed_price_sats\` is the listing's current price. Reorgs: a reused unit's listing whose asset UTXO a reorg unconfirms goes back to \`pending\` (off the public book, signed half kept) and is \`active\` again once the UTXO confirms holding exactly the unit (ended \`invalid\` if it vanished or holds something else); a listing ended \`invalid\` because its asset UTXO was spent comes back (\`active\`, or ended \`expired\` if past its expiry) if the spending block is reorged out before the spend has 3 confirmations, and its \`listing_invalidated\` owner event disappears until the spend confirms again.`;

export function listingRoutes(app: App, ctx: Context): void {
  const store = new ListingStore(ctx.store.db);
  const preflights = new PreflightService(ctx, store);
  const attaches = new AttachSubmission(ctx, store);
  const ownDraft = async (req: Parameters<typeof requireSession>[0], id: string) =>
    ownedOr404(req, await store.draft(id), (x) => x.seller, 'listing preflight');
  const ListingExpiry = { ...UnixSeconds, description: "marketplace expiry of the listing (the seller's choice), unix seconds: in the future, at most 365 days ahead. Not the draft's expires_at (its 15-minute template deadline)." };

  app.post(
    '/v1/listing-preflights',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Prepare a listing (reuse an attached unit, or attach a balance)',
        description: `Session required; \`seller\` must be the session address (else 403) and a SegWit signing address (P2WPKH/P2TR); \`asset_source\` (default the seller) may be P2PKH, P2WPKH or P2TR (else 400 unsupported_address_type).

**mode** defaults to \`reuse\` when \`asset_utxo\` is given or the seller holds an attached UTXO with exactly \`quantity_raw\` of the asset and nothing else (not listed), otherwise \`attach\`.

- \`reuse\`: the UTXO must be unspent, confirmed, pay the seller and hold exactly the unit (422 insufficient_asset_balance with purpose \`reuse\` otherwise; 409 state_changed when spent, unconfirmed, listed or claimed). The unit already belongs to the seller, so \`asset_source\` is the seller. The draft starts \`ready\`.
- \`attach\`: an unsigned attach PSBT (\`attach.psbt_hex\`, one signer entry per address with its inputs, sighash ALL). Layout: inputs are asset-free BTC UTXOs of asset_source (input 0 keys the Counterparty message; a UTXO carrying any Counterparty balance is never spent); out 0 is 330 sats to the seller (the new asset UTXO, destination_vout 0); out 1 the OP_RETURN attach message; out 2 change to asset_source when above dust. P2PKH inputs carry their previous transaction (nonWitnessUtxo). \`funding\` outpoints, when given, are used alone (unconfirmed allowed, to chain on a previous attach's change). The address-level balance must cover the quantity, and XCP the attach fee, net of what other open drafts of the same source committed (your own unsigned drafts, and any draft whose attach the source has signed; another seller's unsigned drafts naming the same asset_source commit nothing, since asset_source needs no session, nor do they reserve its coins): else 422 insufficient_asset_balance {asset, held_raw, committed_raw, needed_raw, purpose: attach|attach_fee}. Not enough asset-free BTC: 422 insufficient_funds {need_sats, have_sats, shortfall_sats}; when confirming BTC would cover it, also \`reason: no_funding, retryable: true\`.

**expected_txid** and **asset_utxo** are known at once when every attach input is SegWit, and the listing template is then returned with the draft when \`price_sats\` is given (sign both and use attach-and-list). A P2PKH source changes the txid when it signs: expected_txid and asset_utxo are null until the signed attach is submitted (POST …/attach); read the outpoint from the draft then.

**fees**: network = estimated vsize × fee_rate (default the chain's half-hour estimate); protocol = the XCP attach fee now, \`variable_until_confirmed\` until the block that parses the attach (then actual_amount_raw, observed_block, charged_at); platform = what a buyer will pay the market on this price: max(MARKET_FEE_MIN_SATS, price × MARKET_FEE_BPS / 10000), 0 without a price.

**Idempotency**: \`idempotency_key\` is unique per seller. The same key with the same body returns the same draft (in its current state); with another body it is 409 state_changed with \`idempotency_key\` and \`preflight_id\`. P2TR addresses may pass their BIP-86 internal keys (\`seller_tap_internal_key\`, \`asset_source_tap_internal_key\`) so the templates carry tapInternalKey.

**protocol_subtype** (\`plain\` by default, or \`cosigned\`): see the ListingProtocolSubtype schema for what each protects against. \`cosigned\` needs a P2TR seller with \`seller_tap_internal_key\` (400 unsupported_address_type / invalid_request otherwise; 503 service_unavailable while the market signer cannot be reached); the draft names the co-signed output (\`cosigned_output\`) and the listing template spends it by its leaf. With mode=attach the attach puts the unit straight on it. With mode=reuse the unit (checked as for any reuse) is moved there by one transaction the draft returns as \`attach\` (status awaiting_attach_signature): in 0 the unit, in 1… your asset-free coins, out 0 330 sats to the co-signed output (no message: Counterparty moves the unit to the first output), out 1 change, every input signed ALL; submit it with attach-and-list like an attach (no XCP fee).

Price bounds: 422 price_below_minimum (< 5,000 sats, with minimum_price_sats) and listing_price_above_maximum (> 100 BTC, with maximum_price_sats).
${DRAFT_DOC}`,
        body: PreflightBody,
        response: { 200: Ok(Draft), ...errorResponses },
      },
    },
    async (req) => ({ result: await preflights.create(requireSession(req), req.body, 'listing') }),
  );

  app.post(
    '/v1/attach-templates',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Prepare a unit without listing it (an attach template)',
        description: `Builds the same attach as a mode=attach listing preflight, for a unit that will not be listed now (for example to accept an offer later). \`utxo_owner\` is the SegWit address the new asset UTXO pays (the session address). The result is a draft with purpose \`prepare\`; after the attach confirms and is verified it reads \`prepared\` and the unit appears in GET /v1/inventory/prepared.

When asset_source's BTC exists but is still confirming, the answer is 422 insufficient_funds with \`reason: no_funding\` and \`retryable: true\`: retry after the next block, or chain on a previous attach's change by passing it in \`funding\`. \`idempotency_key\` is optional here and behaves as on listing preflights.
${DRAFT_DOC}`,
        body: AttachTemplateBody,
        response: { 200: Ok(Draft), ...errorResponses },
      },
    },
    async (req) => {
      const { utxo_owner, utxo_owner_tap_internal_key, ...rest } = req.body;
      const input = { ...rest, seller: utxo_owner, ...(utxo_owner_tap_internal_key ? { seller_tap_internal_key: utxo_owner_tap_internal_key } : {}) };
      return { result: await preflights.create(requireSession(req), input, 'prepare') };
    },
  );

  app.get(
    '/v1/listing-preflights/:id',
    {
      config: { limit: 'recovery_read', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Read a listing draft',
        description: `Session required; a draft of another seller answers 404 like a missing one. The saved operation status: read on the recovery budget (300 / 1,800 a minute, apart from ordinary reads), so recovering after a 502 or a timeout never competes with browsing. ${DRAFT_DOC}`,
        params: IdParams,
        response: { 200: Ok(Draft), ...errorResponses },
      },
    },
    async (req) => {
      const d = ownedOr404(req, await store.draft(req.params.id), (x) => x.seller, 'listing preflight');
      return { result: await preflights.view(d) };
    },
  );

  app.post(
    '/v1/listing-preflights/:id/attach',
    {
      config: { limit: 'signed_completion', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Submit the signed attach alone',
        description: `For a P2PKH source (whose signature changes the txid), for an attach template, or to list later. Every input must be signed ALL by its signer entry (422 signature_invalid naming the input otherwise); a PSBT that differs from the stored template (an input, output, amount or prevout changed or added) is 422 template_mismatch; one that does not parse is 422 invalid_transaction; an expired template is 410 expired. The signed bytes are journaled, with claims on every input, before the broadcast; the draft moves to \`broadcasting\` then \`awaiting_indexer\`. The response is the draft: \`attach_txid\`, \`expected_txid\` and \`asset_utxo\` now hold the real outpoint (read them here for a P2PKH source) and, when a price is set, the listing template to sign. Relay outcomes: a node refusal is 422 mempool_rejected with \`mempool_policy\` (fee_floor: create a new preflight at a higher fee_rate) or 422 invalid_transaction, a loss to a conflicting or replacing spend in the mempool 409 state_changed with \`mempool_reason\`, an input spent in the chain (or claimed by another settlement) 409 conflict_spend; each carries \`claims_released: true\`: the draft is then \`failed\` (last_error has the node's reason), nothing stays claimed and the balance it counted on is free for a new preflight. An unknown outcome is 502 broadcast_unknown: the signed attach is journaled, the draft reads \`broadcasting\` (and is listed by ?state=in_flight) until recovery relays it, then \`awaiting_indexer\`; read the draft, never re-sign. Submitting the same signed bytes again is safe: a journaled or relayed attach is relayed again and the draft returned, a refused one answers the same refusal again (the same bytes fail the same way), a confirmed one returns the draft.`,
        params: IdParams,
        body: Type.Object({ psbt_hex: PsbtHex }, { additionalProperties: false }),
        response: { 200: Ok(Draft), ...errorResponses },
      },
    },
    async (req) => {
      const d = await ownDraft(req, req.params.id);
      return { result: await preflights.view(await attaches.submit(d, req.body.psbt_hex)) };
    },
  );

  app.post(
    '/v1/listing-preflights/:id/attach-and-list',
    {
      config: { limit: 'signed_completion', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Submit the signed attach and its dependent listing together',
        description: `Journals one signed attach (checked as in POST …/attach) and its signed dependent listing half: input 0 spends output 0 of the final attach transaction, output 0 pays the draft's price to the seller, signed SINGLE|ANYONECANPAY by the seller. Needs a price on the draft. Only the attach broadcasts at once; the listing is stored \`pending\` (private) and becomes \`active\` (public) once the indexer has seen the attach confirm and Counterparty shows the asset UTXO holding exactly the unit. Returns the durable listing operation: the draft, with listing_id and listing_status.

Relay outcomes are those of POST …/attach; on a refusal (422 mempool_rejected / invalid_transaction, 409 state_changed with \`mempool_reason\` / conflict_spend, all with \`claims_released: true\`) the draft is \`failed\` and its never-public listing ends \`invalid\` (its signed half wiped). On 502 broadcast_unknown the pair is journaled: the draft reads \`broadcasting\` and the listing \`pending\` until recovery relays the attach. Repeating the same attach with the same listing half and expires_at is idempotent (the same operation, no second settlement); another listing half on an attach already submitted is 409 state_changed.`,
        params: IdParams,
        body: Type.Object({ attach_psbt_hex: PsbtHex, listing_psbt_hex: PsbtHex, expires_at: ListingExpiry }, { additionalProperties: false }),
        response: { 200: Ok(Draft), ...errorResponses },
      },
    },
    async (req) => {
      const d = await ownDraft(req, req.params.id);
      const listing = { psbt_hex: req.body.listing_psbt_hex, expires_at: req.body.expires_at };
      return { result: await preflights.view(await attaches.submit(d, req.body.attach_psbt_hex, listing)) };
    },
  );

  app.post(
    '/v1/listing-preflights/:id/listing',
    {
      config: { limit: 'signed_completion', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Submit the signed listing',
        description: `The draft's listing template (\`listing.psbt_hex\`) signed SINGLE|ANYONECANPAY by the seller on input 0. Allowed once the asset outpoint is known and a price is set (next_action sign_listing): a \`ready\` draft gives an \`active\` listing at once (a reused unit is checked again against Bitcoin and Counterparty) and the draft becomes \`completed\`; a draft still \`broadcasting\`/\`awaiting_indexer\` gives a \`pending\` listing the indexer activates. The signed half is stored privately and never published. Wrong sighash or key: 422 signature_invalid; another outpoint, price or output, or input 0 without its \`witnessUtxo\` (a checkout copies the prevout from it): 422 template_mismatch; already listed or the asset UTXO spent: 409 state_changed.`,
        params: IdParams,
        body: Type.Object({ psbt_hex: PsbtHex, expires_at: ListingExpiry }, { additionalProperties: false }),
        response: { 200: Ok(FinalizedListing), ...errorResponses },
      },
    },
    async (req) => {
      const d = await ownDraft(req, req.params.id);
      return { result: finalizedListing(await submitListing(ctx, store, d, req.body)) };
    },
  );

  app.delete(
    '/v1/listing-preflights/:id',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Discard a draft',
        description:
          'Forgets a draft with nothing in flight: an unsigned (or expired) attach template, a `ready` or `prepared` unit not listed, or a `failed` draft. The id answers 404 afterwards and its idempotency_key may be used again; an attached unit stays attached (GET /v1/inventory/prepared still shows it). A draft whose signed attach is being relayed or confirmed (`broadcasting`, `awaiting_indexer`) or that has an open listing (`completed`) answers 409 state_changed: delist the listing instead. Account-maintenance budget.',
        params: IdParams,
        response: { 200: Ok(Type.Object({ id: Type.String(), discarded: Type.Literal(true) }, { additionalProperties: false })), ...errorResponses },
      },
    },
    async (req) => ({ result: await discardDraft(ctx, store, await ownDraft(req, req.params.id)) }),
  );

  app.post(
    '/v1/listing-preflights/:id/price',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Set or change a draft’s price',
        description:
          'Sets the ask of a listing preflight whose listing is not signed yet (`awaiting_attach_signature` before expiry, `broadcasting`, `awaiting_indexer`, `ready`). Returns the draft with the rebuilt listing template (when the asset outpoint is known) and platform fee. 5,000 sats to 100 BTC (422 price_below_minimum / listing_price_above_maximum). A listed draft answers 409 state_changed: reprice the listing instead. Account-maintenance budget.',
        params: IdParams,
        body: Type.Object({ price_sats: Price }, { additionalProperties: false }),
        response: { 200: Ok(Draft), ...errorResponses },
      },
    },
    async (req) => ({ result: await preflights.view(await setDraftPrice(ctx, store, await ownDraft(req, req.params.id), req.body.price_sats)) }),
  );

  app.get(
    '/v1/address/:address/listing-preflights',
    {
      config: { limit: 'recovery_read', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'The session address’s listing drafts',
        description: `Owner only (403 for another address, 401 without a session). Newest first by (created_at, id), \`limit\` 1 to 100 (default 50), opaque \`cursor\`. With \`state=in_flight\`: only drafts whose signed attach is still confirming (\`broadcasting\` or \`awaiting_indexer\`), newest activity first, at most 50, no paging (\`limit\` and \`cursor\` are ignored; next_cursor is null). Use it to recover a lost create or submit response. An unsigned attach past its expiry reads \`expired\`. Recovery-read budget.`,
        params: Type.Object({ address: Address }, { additionalProperties: false }),
        querystring: Type.Object(
          { limit: Limit(50), cursor: Type.Optional(Cursor), state: Type.Optional(Type.Literal('in_flight', { description: 'only `in_flight`' })) },
          { additionalProperties: false },
        ),
        response: { 200: Page(Draft), ...errorResponses },
      },
    },
    async (req) => {
      const address = requireOwner(req, req.params.address);
      const q = req.query;
      const now = nowSeconds(ctx.clock);
      let rows;
      let next: string | null = null;
      if (q.state === 'in_flight') rows = await store.inFlight(address, 50);
      else {
        const route = 'listing-preflights';
        const after = ctx.cursors.decode<{ c: number; i: string }>(q.cursor, route, { address });
        rows = await store.pageDrafts(address, q.limit + 1, after ? { created_at: after.c, id: after.i } : undefined);
        if (rows.length > q.limit) {
          rows = rows.slice(0, q.limit);
          const last = rows[rows.length - 1]!;
          next = ctx.cursors.encode(route, { address }, { c: last.created_at, i: last.id });
        }
      }
      const listings = await store.listingMap(rows.map((r) => r.listing_id));
      const result = rows.map((d) => draftView(d, d.listing_id ? listings.get(d.listing_id) : undefined, now, ctx.config));
      return { result, result_count: result.length, next_cursor: next };
    },
  );

  listingMaintenanceRoutes(app, ctx, store);
}
