/**
 * The buyer's spendable BTC: confirmed UTXOs of the buyer address, largest first, excluding any
 * that carries a Counterparty balance (spending it would move or detach the balance) and any
 * outpoint a settlement in flight claims. Only this asset-free BTC counts as `have_sats`.
 * Unconfirmed coins are left out: a checkout must not hang on a parent that may never confirm.
 */
import type { Context } from '../../context.js';
import { outpointKey } from '../listings/rules.js';
import type { BuyerCoin } from './compose.js';

export async function buyerCoins(ctx: Pick<Context, 'chain' | 'journal' | 'store'>, buyer: string): Promise<BuyerCoin[]> {
  const utxos = (await ctx.chain.counterparty.getAddressUtxos(buyer)).filter((u) => u.confirmations >= 1 && u.value_sats > 0);
  const keys = utxos.map((u) => outpointKey(u.txid, u.vout));
  const [withBalances, claimed] = await Promise.all([
    keys.length ? ctx.chain.counterparty.getUtxosWithBalances(keys) : Promise.resolve(new Set<string>()),
    ctx.journal.claimed(ctx.store.db, keys),
  ]);
  return utxos
    .filter((_, i) => !withBalances.has(keys[i]!) && !claimed.has(keys[i]!))
    .sort((a, b) => b.value_sats - a.value_sats || a.txid.localeCompare(b.txid) || a.vout - b.vout)
    .map((u) => ({ txid: u.txid, vout: u.vout, value_sats: u.value_sats }));
}
