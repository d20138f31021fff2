/**
 * POST /v1/checkout/quotes: resolve the cart, fund it from the buyer's asset-free BTC and build
 * the unsigned checkout PSBT. A quote reserves nothing; it stores the listing versions it saw so
 * the completion can tell a repriced or delisted listing from the one quoted.
 */
import type { Context } from '../../context.js';
import { ApiError, insufficientFunds } from '../../http/errors.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { nowSeconds } from '../../clock.js';
import { decodeAddress, scriptToAddress } from '../../bitcoin/address.js';
import { DUST_LIMITS } from '../../bitcoin/dust.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { platformFee, tapInternalKeyFor } from '../listings/index.js';
import { resolveCart } from './cart.js';
import { buildCheckoutPsbt, planCheckout, type CheckoutPlan, type CheckoutShape, type SellerPair } from '../../trade/compose.js';
import { marketFeeScript } from '../../trade/fee-address.js';
import { buyerCoins, namedCoins, offersEndedBy, type EndsOffers } from '../../trade/coins.js';
import { BUYER_SEQUENCE, BUYER_SEQUENCE_MIN, type DeliveryMode } from '../../trade/rules.js';
import { newQuoteId, type CheckoutStore, type QuoteLine, type QuoteRow } from './store.js';
import { MAX_UNITS, QUOTE_TTL_S, type CartLine } from './rules.js';

export interface QuoteInput {
  lines: CartLine[];
  buyer_address?: string;
  delivery_mode?: DeliveryMode;
  delivery_address?: string;
  fee_rate?: number;
  buyer_tap_internal_key?: string;
  /** Coins the buyer names, spent in this order as far as needed (src/trade/coins.ts namedCoins). */
  funding?: Array<{ txid: string; vout: number }>;
}

/** The request's own rules, before anything is read: sizes, duplicates, address roles, the buyer. */
function checkRequest(ctx: Context, me: string, body: QuoteInput) {
  const network = ctx.config.NETWORK;
  const units = body.lines.reduce((t, l) => t + ('listing_id' in l ? 1 : l.quantity), 0);
  if (units > MAX_UNITS) throw new ApiError('invalid_request', `a cart holds at most ${MAX_UNITS} units; this one asks for ${units}`, { field: 'body.lines' });
  const ids = body.lines.flatMap((l) => ('listing_id' in l ? [l.listing_id] : []));
  if (new Set(ids).size !== ids.length) throw new ApiError('invalid_request', 'body.lines names a listing twice', { field: 'body.lines' });

  const buyer = body.buyer_address ?? me;
  requireAddressRole(buyer, 'signing', network, 'body.buyer_address');
  if (buyer !== me) throw new ApiError('forbidden', 'body.buyer_address must be the session address (it signs and pays)');
  const mode = body.delivery_mode ?? 'detached';
  const delivery = body.delivery_address ?? buyer;
  requireAddressRole(delivery, 'delivery', network, 'body.delivery_address');
  const d = decodeAddress(delivery, network);
  if (!d.ok) throw new Error('checked above');
  // The detach names the destination as a string and Counterparty's ledger keys balances by that
  // string: an upper-case bech32 spelling would be credited to a holder no wallet ever spends
  // from (sources are read from scripts, always lower case). Write the canonical spelling.
  const deliveryAddress = scriptToAddress(d.script, network) ?? delivery;
  if (mode === 'attached' && d.family !== 'p2wpkh' && d.family !== 'p2tr') {
    throw new ApiError('unsupported_address_type', `body.delivery_address: attached delivery puts the asset UTXO on a ${d.family} output; use a SegWit (P2WPKH or P2TR) address`, {
      field: 'body.delivery_address',
    });
  }
  if (mode === 'attached' && units > 1) {
    throw new ApiError('attached_delivery_single_item_only', `attached delivery is for one item; this cart asks for ${units}`);
  }
  const b = decodeAddress(buyer, network);
  if (!b.ok) throw new Error('checked above');
  const tapKey = tapInternalKeyFor(buyer, body.buyer_tap_internal_key, network, 'body.buyer_tap_internal_key');
  return { buyer, buyerFamily: b.family as 'p2wpkh' | 'p2tr', buyerScript: b.script, tapKey, mode, delivery: { mode, address: deliveryAddress, script: d.script } };
}

/**
 * The checkout PSBT, as a transaction the journal does not hold yet. The same cart, coins and
 * rate build the same txid, and the journal keeps one settlement per txid: after a released
 * (failed) completion, quoting the cart again lowers the buyer inputs' sequence, which no
 * seller signature commits to, so the new quote is a new transaction at the same price.
 */
async function unjournaledPsbt(ctx: Context, shape: CheckoutShape, plan: CheckoutPlan) {
  for (let sequence = BUYER_SEQUENCE; sequence >= BUYER_SEQUENCE_MIN; sequence--) {
    const built = buildCheckoutPsbt({ ...shape, buyerSequence: sequence }, plan);
    if (!(await ctx.journal.byTxid(ctx.store.db, built.expected_txid))) return built;
  }
  throw new ApiError('state_changed', 'this cart was completed and refused too many times with these coins; fund the buyer address anew or choose another fee_rate');
}

export async function createQuote(ctx: Context, store: CheckoutStore, me: string, body: QuoteInput): Promise<{ row: QuoteRow; skippedOwn: string[]; endsOffers: EndsOffers }> {
  const now = nowSeconds(ctx.clock);
  const req = checkRequest(ctx, me, body);
  const feeScript = marketFeeScript(ctx.config);

  const cart = await resolveCart(store, ctx.journal, me, body.lines, now);
  const halves = cart.listings.map((l) => ({ l, ...store.halves.pair(l) }));
  const first = halves[0]!;
  if (halves.some((h) => h.version !== first.version || h.lockTime !== first.lockTime)) {
    throw new ApiError('state_changed', 'these listings were signed for different transaction versions or locktimes and cannot share one checkout; buy them separately');
  }

  // The chain agrees the units are still there (a spend the indexer has not seen yet fails here, not at broadcast).
  const [unspent, assets, feeRate] = await Promise.all([
    Promise.all(cart.listings.map((l) => ctx.chain.bitcoin.getTxOut(l.utxo_txid, l.utxo_vout, true))),
    Promise.all([...new Set(cart.listings.map((l) => l.asset))].map((a) => ctx.chain.counterparty.getAsset(a))),
    defaultFeeRate(ctx, body.fee_rate),
  ]);
  const gone = cart.listings.find((_, i) => !unspent[i]);
  if (gone) throw new ApiError('state_changed', `the asset UTXO of listing ${gone.id} is spent`, { listing_id: gone.id, state: 'spent' });
  const longname = new Map(assets.filter((a) => a).map((a) => [a!.asset, a!.asset_longname]));

  const lines: QuoteLine[] = cart.listings.map((l) => ({
    listing_id: l.id,
    version: l.version,
    price_sats: l.price_sats,
    platform_fee_sats: platformFee(ctx.config, l.price_sats),
    utxo_outpoint: l.utxo_outpoint,
    utxo_value_sats: l.utxo_value_sats,
    asset: l.asset,
    asset_longname: longname.get(l.asset) ?? null,
    quantity_raw: l.quantity_raw,
    seller: l.seller,
  }));
  const shape: CheckoutShape = {
    version: first.version,
    lockTime: first.lockTime,
    buyerScript: req.buyerScript,
    buyerSpend: req.buyerFamily === 'p2tr' ? 'p2tr-key-explicit' : 'p2wpkh',
    buyerDust: DUST_LIMITS[req.buyerFamily],
    buyerTapKey: req.tapKey,
    pairs: halves.map((h): SellerPair => h.pair),
    delivery: req.delivery,
    platformFee: { script: feeScript, sats: lines.reduce((t, l) => t + l.platform_fee_sats, 0) },
    network: ctx.config.NETWORK,
  };

  const coins = body.funding ? await namedCoins(ctx, req.buyer, body.funding) : await buyerCoins(ctx, req.buyer);
  const plan = planCheckout(shape, coins, feeRate);
  if ('short' in plan) {
    throw insufficientFunds(body.funding ? 'the named coins cannot pay this cart' : `asset-free confirmed BTC of ${req.buyer} cannot pay this cart`, plan.need_sats, plan.have_sats);
  }
  const built = await unjournaledPsbt(ctx, shape, plan);
  const row: QuoteRow = {
    id: newQuoteId(),
    buyer_address: req.buyer,
    delivery_address: req.delivery.address,
    delivery_mode: req.mode,
    fee_rate: feeRate,
    lines: JSON.stringify(lines),
    psbt: built.psbt_hex,
    inputs_to_sign: JSON.stringify(built.inputs_to_sign),
    funding: JSON.stringify(plan.coins.map((c) => `${c.txid}:${c.vout}`)),
    expected_txid: built.expected_txid,
    price_sats: lines.reduce((t, l) => t + l.price_sats, 0),
    platform_fee_sats: shape.platformFee.sats,
    network_fee_sats: plan.network_fee_sats,
    status: 'quoted',
    settlement_id: null,
    signed_sha256: null,
    completed_at: null,
    expires_at: now + QUOTE_TTL_S,
    created_at: now,
    updated_at: now,
  };
  await store.insertQuote(row);
  const endsOffers = body.funding ? await offersEndedBy(ctx.store.db, plan.coins.map((c) => `${c.txid}:${c.vout}`)) : [];
  return { row, skippedOwn: cart.skippedOwn, endsOffers };
}
