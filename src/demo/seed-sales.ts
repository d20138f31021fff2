/**
 * The demo market's trading history: a few purchases of demo listings by the other demo
 * wallets, through the market's own checkout (a quote, the buyer's signature with the published
 * demo key, the completion that claims, journals and broadcasts), then one block and a sync so
 * the fills confirm and the public reads (fills, sales feed, book, analytics) show them.
 *
 * Re-running after a crash is safe: the sync first relays a settlement journaled but never
 * broadcast (the recovery path) and confirms one already mined; a listing with a live (pending
 * or confirmed) fill is never bought again, and a quote is never completed twice (an unfinished
 * quote is simply left to expire: quotes reserve nothing, a fresh one is asked for instead).
 */
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import type { Context } from '../context.js';
import type { DevnetControl } from '../chain/devnet-control.js';
import { ListingStore } from '../modules/listings/store.js';
import { CheckoutStore } from '../modules/checkout/store.js';
import { CheckoutCompletion } from '../modules/checkout/complete.js';
import { createQuote, type QuoteInput } from '../modules/checkout/quote.js';
import type { DeliveryMode } from '../trade/rules.js';
import { demoListingId, signPsbt } from './seed-listings.js';
import type { DemoSigner } from './wallets.js';

export interface DemoPurchase {
  /** The demo wallet that signs, pays and (by default) receives. */
  buyer: 'alice' | 'bob' | 'carol';
  /** Demo listings (DEMO_LISTINGS, by asset) bought together in one cart. */
  assets: string[];
  delivery_mode: DeliveryMode;
}

/**
 * Each wallet buys once, so every purchase is funded from coins confirmed before this phase
 * (the listings phase leaves each wallet about 2,000,000 sats of asset-free change per coin).
 * Every collection keeps two live listings: rare-pepes PEPEMOON and PEPEDIAMOND, fake-rares
 * FAKEASF and FAKEDREAM, spells-of-genesis SOGFIRE and SOGDRAGON.
 */
export const DEMO_PURCHASES: readonly DemoPurchase[] = [
  // carol buys alice's unit, detached to carol.
  { buyer: 'carol', assets: ['SOGWATER'], delivery_mode: 'detached' },
  // alice buys a unit of bob (a P2TR seller), delivered still attached on a 330-sat output of alice.
  { buyer: 'alice', assets: ['FAKEORACLE'], delivery_mode: 'attached' },
  // bob (a P2TR buyer) buys a two-seller cart: carol's and alice's units, one detach to bob.
  { buyer: 'bob', assets: ['PEPECASH', 'PEPEGENESIS'], delivery_mode: 'detached' },
];

/** Listing ids among `ids` with a live sale: pending (in flight) or confirmed. Dropped sales do not count. */
async function alreadySold(ctx: Context, ids: string[]): Promise<Set<string>> {
  const rows = await ctx.store.db.selectFrom('fills').select('ref_id').where('kind', '=', 'listing').where('ref_id', 'in', ids).where('state', '!=', 'dropped').execute();
  return new Set(rows.map((r) => r.ref_id));
}

/** Makes the demo purchases; returns how many units were bought by this run. */
export async function seedDemoSales(ctx: Context, devnet: DevnetControl, signers: DemoSigner[]): Promise<number> {
  const listings = new ListingStore(ctx.store.db);
  const checkout = new CheckoutStore(ctx.store.db);
  const completion = new CheckoutCompletion(ctx, checkout);

  // Recovery and the indexer first: a settlement left journaled by a crash is relayed (or
  // released, its listings active again), one already mined confirms.
  await ctx.sync();

  let bought = 0;
  for (const p of DEMO_PURCHASES) {
    const buyer = signers.find((s) => s.label === p.buyer);
    if (!buyer) throw new Error(`demo seed: no demo wallet ${p.buyer}`);
    const ids: string[] = [];
    for (const asset of p.assets) {
      const id = await demoListingId(listings, asset, signers);
      if (!id) throw new Error(`demo seed: ${asset} was never listed`);
      ids.push(id);
    }
    const sold = await alreadySold(ctx, ids);
    const todo = ids.filter((id) => !sold.has(id));
    if (!todo.length) continue;

    const input: QuoteInput = {
      lines: todo.map((listing_id) => ({ listing_id })),
      delivery_mode: p.delivery_mode,
      ...(buyer.family === 'p2tr' ? { buyer_tap_internal_key: hex.encode(buyer.xOnly) } : {}),
    };
    const { row } = await createQuote(ctx, checkout, buyer.address, input);
    const signed = signPsbt(row.psbt, buyer, JSON.parse(row.inputs_to_sign) as number[], SigHash.ALL);
    const op = await completion.complete(row, signed);
    if (op.status !== 'broadcast') throw new Error(`demo seed: ${p.buyer}'s purchase of ${p.assets.join(', ')} is ${op.status}`);
    bought += todo.length;
  }

  const inFlight = async () => ctx.store.db.selectFrom('fills').select('id').where('state', '=', 'pending').execute();
  if ((await inFlight()).length) {
    await devnet.mine(1);
    await ctx.sync();
    const left = await inFlight();
    if (left.length) throw new Error(`demo seed: ${left.length} demo sales did not confirm`);
  }
  return bought;
}
