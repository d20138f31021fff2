import type { App } from '../../http/app-type.js';
import { sessionSecurity } from '../../http/security.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { ownedOr404, requireSession } from '../auth/index.js';
import { CheckoutCompletion } from './complete.js';
import { createQuote } from './quote.js';
import { MAX_LINES, MAX_UNITS, QUOTE_TTL_S } from './rules.js';
import { CompleteBody, Operation, QuoteBody, QuoteParams } from './schemas.js';
import { CheckoutStore } from './store.js';

const tags = ['checkout'];

const LAYOUT = `**Transaction layout.** in 0: a buyer coin (signed ALL; it keys the Counterparty message). out 0: detached delivery: the detach OP_RETURN whose destination is \`delivery_address\` (one message detaches every unit of the cart); attached delivery: 330 sats to \`delivery_address\` (Counterparty moves the unit to the first non-OP_RETURN output, hence one item only). in k / out k (k = 1..n): the listings' SINGLE|ANYONECANPAY pairs exactly as their sellers signed them (out k pays seller k its price). Then further buyer coins; then one platform-fee output (the sum of each unit's fee, max(MARKET_FEE_MIN_SATS, price × MARKET_FEE_BPS / 10000)); then buyer change (change below the buyer's dust limit goes to the network fee). The message sits at output 0 because Counterparty Core does not parse a message preceded by two or more address outputs (the units would stay on spent outputs). The PSBT carries every input's prevout (witnessUtxo) but not the sellers' signatures: the market keeps them private and adds them at completion. Every input is SegWit, so \`expected_txid\` is the final txid.`;

export function checkoutRoutes(app: App, ctx: Context): void {
  const store = new CheckoutStore(ctx.store.db);
  const completion = new CheckoutCompletion(ctx, store);
  const own = async (req: Parameters<typeof requireSession>[0], id: string) =>
    ownedOr404(req, await store.quote(id), (q) => q.buyer_address, 'checkout quote');

  app.post(
    '/v1/checkout/quotes',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Quote a cart: the unsigned checkout PSBT',
        description: `Session required. \`lines\`: 1 to ${MAX_LINES}, at most ${MAX_UNITS} units in all (a unit is one listing, sold whole with its quantity_raw), no listing named twice (400 invalid_request otherwise). A \`{listing_id}\` line buys that listing; an \`{asset, quantity}\` line buys the \`quantity\` cheapest fillable listings of the asset (ties: oldest first). Fillable: active, not past its marketplace expiry, not claimed by a settlement in flight, not sold by the caller.

**Refusals.** An unknown listing id: 404 not_found (\`listing_id\`). A listing that exists but is not fillable: 409 state_changed (\`listing_id\`, \`state\`: reserved, sold, ended, pending, spent). An asset line with fewer fillable units than asked: 409 state_changed with \`asset\`, \`available\` and \`requested\` (nothing is bought silently short). The caller's own listings are skipped (a \`{listing_id}\` line naming one is dropped and reported in \`skipped_own_listings\`; an asset line never picks one); when only the caller's own listings remain: 409 self_trade with \`own_listings\`.

**Addresses.** \`buyer_address\` defaults to the session address and must be it (403 forbidden otherwise) and must be P2WPKH or P2TR (400 unsupported_address_type). A P2TR buyer may pass \`buyer_tap_internal_key\` (BIP-86, x-only hex; 400 invalid_request when it does not tweak to buyer_address) so the buyer inputs carry tapInternalKey. \`delivery_address\` defaults to buyer_address and is used in its canonical spelling (bech32 in lower case, as the response's \`delivery.address\` shows): Counterparty credits the detached units to the destination string itself, and an upper-case spelling would be a holder no wallet spends from. Detached delivery (default): any address family Counterparty knows, P2PKH included (it is only a string in the detach message). Attached delivery (\`delivery_mode: attached\`): one unit only (422 attached_delivery_single_item_only), delivered on a 330-sat output, so the address must be P2WPKH or P2TR (400 unsupported_address_type).

**Funding.** Confirmed UTXOs of buyer_address, largest first, never one that carries a Counterparty balance and never one claimed by a settlement in flight. A coin counts once Counterparty has parsed its block (Counterparty Core answers while one block behind Bitcoin, and until then it cannot tell whether that block gave the coin a balance): a coin from the newest block may wait one block. Not enough: 422 insufficient_funds with \`need_sats\`, \`have_sats\` (asset-free confirmed BTC only) and \`shortfall_sats\`. Network fee = estimated final vsize × \`fee_rate\` (default the chain's half-hour estimate). The buyer pays price + platform fee + network fee (+ 330 sats for attached delivery): \`totals.total_sats\`. The listed asset UTXOs' own sats (\`totals.asset_utxo_sats\`, 330 per unit) are spent by the checkout and come back to the buyer in the change, so the buyer's coins need only cover total_sats − asset_utxo_sats (\`need_sats\` counts this way).

${LAYOUT}

**The quote** lives ${QUOTE_TTL_S / 60} minutes (\`expires_at\`) and reserves nothing (\`reserves_inventory: false\`): sign the inputs in \`inputs_to_sign\` with sighash ALL (P2TR may use DEFAULT) and POST it to /v1/checkout/quotes/{id}/complete. The response is the checkout operation (status \`quoted\`).`,
        body: QuoteBody,
        response: { 200: Ok(Operation), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireSession(req);
      const { row, skippedOwn, endsOffers } = await createQuote(ctx, store, me, req.body);
      return { result: await completion.view(row, { skippedOwn, ...(req.body.funding ? { endsOffers } : {}) }) };
    },
  );

  app.post(
    '/v1/checkout/quotes/:id/complete',
    {
      config: { limit: 'signed_completion', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Complete a quote with the signed PSBT: claim, journal, broadcast',
        description: `Session required; only the quote's buyer (a missing and a foreign id both answer 404). Body \`{psbt_hex}\`: the quote PSBT with every input of \`inputs_to_sign\` signed by buyer_address (partial signatures or finalized witnesses).

**Checks, in order.** Past \`expires_at\`: 410 expired. A PSBT that does not parse: 422 invalid_transaction. Any change to the unsigned transaction (an input or output changed, added, removed or reordered, a sequence, version, locktime or prevout changed): 422 template_mismatch. A buyer signature by another key or with another sighash than ALL (P2TR DEFAULT accepted): 422 signature_invalid; so is an input 0 whose final witness Counterparty would read no ALL flag from (for example a taproot key-path spend with an annex, which Counterparty reads as a two-item P2WPKH witness): it would drop the detach and the units would go back to the first seller. Only the buyer's signatures are read from the body; the sellers' come from their stored halves. A unit confirmed in the last 3 blocks is checked on the node: one a reorg or an unindexed spend took away (not confirmed and unspent there now) is 409 checkout_changed (\`listing_id\`), nothing claimed; a Counterparty attach mined again behind the transaction that freed its balance would attach nothing.

**Claim.** In one database transaction every listing must still be active, unexpired and at the quoted version (not repriced, delisted, sold or claimed by any other checkout, offer or accept), and is then reserved; the signed bytes are journaled with claims on every input and one pending fill per unit is written. Otherwise 409 checkout_changed (\`listing_id\` or \`outpoint\`): nothing is written or broadcast; request a new quote and sign again (the old PSBT can never settle). Quotes of the same cart with the same coins and fee_rate are the same transaction; once one of them was completed and failed, the others are 409 checkout_changed (\`txid\`) too, and a new quote is a new transaction (its buyer inputs carry a lower sequence, still RBF-signalling and without relative locktime) at the same price.

**Broadcast** happens after the commit. 200: the operation (status broadcast). A node policy refusal: 422 mempool_rejected with \`mempool_policy\` (fee_floor: quote again at a higher fee_rate) and \`claims_released: true\` (listings active again, fills dropped); a broadcast that lost to a conflicting or replacing spend in the node's mempool: 409 state_changed with the node's \`mempool_reason\` (claims released; re-read the order); an input already spent in the chain: 409 conflict_spend (claims released); a refusal of another kind: 422 invalid_transaction (claims released). An unknown outcome (timeout, node down): 502 broadcast_unknown: the settlement stays journaled and recovery relays it; read GET /v1/checkout/quotes/{id}, never re-sign.

**Repeats.** The same signed bytes again (same PSBT bytes) are idempotent: they answer the operation as it stands (200, re-relaying a settlement still broadcasting, or the same error for a failed one) and never make a second settlement. Other bytes for a completed quote: 409 state_changed.`,
        params: QuoteParams,
        body: CompleteBody,
        response: { 200: Ok(Operation), ...errorResponses },
      },
    },
    async (req) => ({ result: await completion.complete(await own(req, req.params.id), req.body.psbt_hex) }),
  );

  app.get(
    '/v1/checkout/quotes/:id',
    {
      config: { limit: 'recovery_read', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Read a checkout operation (recovery)',
        description: `Session required; only the quote's buyer (a missing and a foreign id both answer 404). The saved operation, for recovery after a lost or uncertain completion response (502, timeout): \`status\` quoted | expired | broadcasting (journaled; recovery keeps relaying) | broadcast | confirmed | failed, with \`txid\` once completed, \`claims_released\`, \`mempool_reason\`, \`failure_code\` and \`mempool_policy\` when failed, and \`confirmations\` / \`block_index\` when confirmed (counted on the market's indexed tip, which lags the chain by up to a few minutes). No signature or raw transaction is ever returned; \`psbt_hex\` is the unsigned quote and only while status is quoted. Request a new quote only once the status is expired or failed.`,
        params: QuoteParams,
        response: { 200: Ok(Operation), ...errorResponses },
      },
    },
    async (req) => ({ result: await completion.view(await own(req, req.params.id)) }),
  );
}
