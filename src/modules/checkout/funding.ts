/**
 * The buyer's spendable BTC: confirmed UTXOs of the buyer address, largest first, excluding any
 * that carries a Counterparty balance (spending it would move or detach the balance) and any
 * outpoint a settlement in flight claims. Only this asset-free BTC counts as `have_sats`.
 * Unconfirmed coins are left out: a checkout must not hang on a parent that may never confirm.
 * So are coins from a block Counterparty has not parsed yet: Core answers "ready" while one
 * block behind, and there a UTXO that block gave a balance still reads as holding nothing.
 */
import type { Context } from '../../context.js';
import { outpointKey } from '../listings/rules.js';
import type { BuyerCoin } from './compose.js';

export async function buyerCoins(ctx: Pick<Context, 'chain' | 'journal' | 'store'>, buyer: string): Promise<BuyerCoin[]> {
  // Counterparty's height is read before its balances, so every coin at or below it is covered.
  const [status, all] = await Promise.all([ctx.chain.counterparty.getStatus(), ctx.chain.utxos.getAddressUtxos(buyer)]);
  const utxos = all.filter((u) => u.confirmations >= 1 && u.height !== null && u.height <= status.counterparty_height && u.value_sats > 0);
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
