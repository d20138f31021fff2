/**
 * mode=reuse: a unit already attached to a UTXO of the seller. Before anything is built or
 * made public, Bitcoin and Counterparty must agree: the UTXO is unspent, confirmed, pays the
 * seller, and holds exactly `quantity_raw` of the asset and nothing else.
 */
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { nowSeconds } from '../../clock.js';
import { outpointKey } from '../../trade/outpoints.js';
import type { ListingRow, ListingStore } from './store.js';
import { endListing } from './lifecycle.js';
import { listingState } from './draft-view.js';

/**
 * The live listing on an outpoint, if any, with expiry applied as reads apply it: a listing
 * past its expiry still stored `active` (the indexer writes expiries once per block) is ended
 * `expired` here, so the unit can be listed again as soon as every read shows it unlisted.
 */
async function openListingAt(ctx: Context, store: ListingStore, op: string): Promise<ListingRow | undefined> {
  const live = await store.liveListingAt(op);
  if (!live) return undefined;
  const now = nowSeconds(ctx.clock);
  if (listingState(live, now).state !== 'ended') return live;
  await store.db.transaction().execute((tx) => endListing(tx, live, 'expired', now));
  return store.liveListingAt(op);
}

export interface VerifiedUnit {
  txid: string;
  vout: number;
  value_sats: number;
  confirmations: number;
  /** The height of the block that confirmed the UTXO on the chain as read. */
  height: number;
}

/**
 * The output with the height of its block: the tip is read before and after, and only a
 * confirmation count read under an unchanged tip is turned into a height (the watcher rolls a
 * reused listing back by this height, so it must be exact).
 */
async function outputWithHeight(ctx: Context, txid: string, vout: number) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = await ctx.chain.bitcoin.getTip();
    const out = await ctx.chain.bitcoin.getTxOut(txid, vout, true);
    const after = await ctx.chain.bitcoin.getTip();
    if (before.hash === after.hash) return { out, height: out && out.confirmations > 0 ? before.height - out.confirmations + 1 : null };
  }
  throw new ApiError('state_changed', 'the chain tip kept moving while the asset UTXO was read; retry', { retryable: true });
}

/**
 * Checks a unit and throws the spec's error for what is wrong:
 * spent or unknown 409 state_changed; not the seller's 400 invalid_request; unconfirmed 409
 * state_changed (retryable); wrong balance 422 insufficient_asset_balance (purpose `reuse`);
 * already listed or claimed 409 state_changed.
 */
export async function checkReuseUtxo(
  ctx: Context,
  store: ListingStore,
  seller: string,
  at: { txid: string; vout: number },
  asset: string,
  quantityRaw: string,
  opts: { allowListingId?: string | null; field?: string } = {},
): Promise<VerifiedUnit> {
  const field = opts.field ?? 'body.asset_utxo';
  const op = outpointKey(at.txid, at.vout);
  const { out, height } = await outputWithHeight(ctx, at.txid, at.vout);
  if (!out) throw new ApiError('state_changed', `asset UTXO ${op} is spent or unknown`, { field });
  if (out.address !== seller) throw new ApiError('invalid_request', `${field} does not pay the seller`, { field });
  if (out.confirmations < 1 || height === null) {
    throw new ApiError('state_changed', `asset UTXO ${op} is not confirmed yet; retry after the next block`, { field, retryable: true });
  }
  const balances = await ctx.chain.counterparty.getUtxoBalances(op);
  const held = balances.filter((b) => b.asset === asset).reduce((s, b) => s + BigInt(b.quantity_raw), 0n);
  if (held !== BigInt(quantityRaw)) {
    throw new ApiError('insufficient_asset_balance', `asset UTXO ${op} holds ${held} of ${asset}, not ${quantityRaw}`, {
      asset,
      held_raw: held.toString(),
      committed_raw: '0',
      needed_raw: quantityRaw,
      purpose: 'reuse',
    });
  }
  if (balances.some((b) => b.asset !== asset && b.quantity_raw !== '0')) {
    throw new ApiError('invalid_request', `asset UTXO ${op} also holds other assets; only a one-asset UTXO can be listed`, { field });
  }
  const live = await openListingAt(ctx, store, op);
  if (live && live.id !== opts.allowListingId) {
    throw new ApiError('state_changed', `asset UTXO ${op} is already listed`, { listing_id: live.seller === seller ? live.id : undefined });
  }
  if ((await ctx.journal.claimed(ctx.store.db, [op])).size) {
    throw new ApiError('state_changed', `asset UTXO ${op} is claimed by a settlement in flight`);
  }
  return { txid: at.txid, vout: at.vout, value_sats: out.value_sats, confirmations: out.confirmations, height };
}

/**
 * The default of `mode`: the first attached UTXO of the seller holding exactly `quantity_raw`
 * of the asset and nothing else, not listed; undefined when there is none (then attach).
 */
export async function findReusableUtxo(
  ctx: Context,
  store: ListingStore,
  seller: string,
  asset: string,
  quantityRaw: string,
): Promise<{ txid: string; vout: number } | undefined> {
  const balances = await ctx.chain.counterparty.getAddressBalances(seller);
  const byUtxo = new Map<string, { asset: string; quantity_raw: string }[]>();
  for (const b of balances) {
    if (!b.utxo || b.quantity_raw === '0') continue;
    byUtxo.set(b.utxo, [...(byUtxo.get(b.utxo) ?? []), b]);
  }
  for (const [utxo, rows] of byUtxo) {
    if (rows.length !== 1 || rows[0]!.asset !== asset || rows[0]!.quantity_raw !== quantityRaw) continue;
    const live = await store.liveListingAt(utxo);
    if (live && listingState(live, nowSeconds(ctx.clock)).state !== 'ended') continue;
    const [txid, vout] = utxo.split(':');
    return { txid: txid!, vout: Number(vout) };
  }
  return undefined;
}
