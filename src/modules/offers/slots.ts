/**
 * Funding slots, checked against the chain: an unspent output (confirmed or in the mempool)
 * paying the bidder's own signing address, carrying no Counterparty balance (spending it
 * would move the balance), and claimed by no settlement in flight.
 */
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { addressToScript } from '../../bitcoin/address.js';
import type { CheckedSlot } from './placement.js';

export const bidField = (i: number) => `body.bids[${i}]`;

/** 403 forbidden unless the output script is the bidder's own. */
export function requireOwnOutput(ctx: Context, bidder: string, scriptHex: string, i: number, key: string): void {
  const own = addressToScript(bidder, ctx.config.NETWORK);
  if (!own || hex.encode(own) !== scriptHex.toLowerCase()) {
    throw new ApiError('forbidden', `bids[${i}]: ${key} does not pay the session address; a bid is backed by an output of the bidder's own signing address`, { field: bidField(i), outpoint: key });
  }
}

/** Outputs that carry a Counterparty balance, or that a settlement in flight claims, refuse the placement. */
export async function refuseEncumbered(ctx: Context, keys: string[]): Promise<void> {
  const [withBalances, claimed] = await Promise.all([ctx.chain.counterparty.getUtxosWithBalances(keys), ctx.journal.claimed(ctx.store.db, keys)]);
  const carrying = keys.findIndex((k) => withBalances.has(k));
  if (carrying !== -1) {
    throw new ApiError('invalid_request', `bids[${carrying}]: ${keys[carrying]} carries a Counterparty balance; spending it would move the balance, so it cannot back a bid`, {
      field: bidField(carrying),
      outpoint: keys[carrying],
    });
  }
  const taken = keys.findIndex((k) => claimed.has(k));
  if (taken !== -1) throw new ApiError('state_changed', `bids[${taken}]: ${keys[taken]} is claimed by a settlement in flight`, { field: bidField(taken), outpoint: keys[taken] });
}

/** `POST /v1/offers`: every named outpoint exists unspent (mempool included) and is the bidder's own. */
export async function existingSlots(ctx: Context, bidder: string, bids: Array<{ txid?: string; vout: number }>): Promise<Array<CheckedSlot & { confirmations: number }>> {
  const slots: Array<CheckedSlot & { confirmations: number }> = [];
  for (const [i, b] of bids.entries()) {
    if (!b.txid) throw new ApiError('invalid_request', `bids[${i}].txid is required here (it is optional only with funding_tx_hex)`, { field: `${bidField(i)}.txid` });
    const key = `${b.txid}:${b.vout}`;
    const out = await ctx.chain.bitcoin.getTxOut(b.txid, b.vout, true);
    if (!out) throw new ApiError('state_changed', `bids[${i}]: ${key} is not an unspent output (spent, or unknown to the node)`, { field: bidField(i), outpoint: key });
    requireOwnOutput(ctx, bidder, out.script_hex, i, key);
    slots.push({ txid: b.txid, vout: b.vout, value_sats: out.value_sats, confirmations: out.confirmations });
  }
  await refuseEncumbered(ctx, slots.map((s) => `${s.txid}:${s.vout}`));
  return slots;
}
