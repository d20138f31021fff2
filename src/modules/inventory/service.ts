/**
 * Inventory reads for sellers. Attachable: address-level Counterparty balances, net of what
 * open drafts of the address already committed (public). Prepared: attached, confirmed,
 * one-asset UTXOs the address owns, listed or not (private to the session).
 */
import type { Context } from '../../context.js';
import { addressLevel, commitments } from '../listings/index.js';
import { ListingStore, LIVE } from '../listings/index.js';
import { listingState } from '../listings/index.js';
import { nowSeconds } from '../../clock.js';
import { splitOutpoint } from '../../trade/outpoints.js';
import { mapPool } from '../../util/pool.js';

/** At most this many UTXOs are read per request (each costs a Bitcoin lookup). */
export const MAX_PREPARED = 500;

export async function attachable(ctx: Context, store: ListingStore, address: string) {
  const now = nowSeconds(ctx.clock);
  const [balances, promised, fee] = await Promise.all([
    ctx.chain.counterparty.getAddressBalances(address),
    commitments(ctx, store, address, now),
    ctx.chain.counterparty.estimateAttachXcpFee(),
  ]);
  const held = addressLevel(balances);
  const longnames = new Map(balances.map((b) => [b.asset, b.asset_longname]));
  const assets = [...held.entries()]
    .filter(([, q]) => q > 0n)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([asset, q]) => {
      const committed = promised.byAsset.get(asset) ?? 0n;
      const free = q > committed ? q - committed : 0n;
      return { asset, asset_longname: longnames.get(asset) ?? null, quantity_raw: q.toString(), committed_raw: committed.toString(), attachable_raw: free.toString() };
    });
  return { address, attach_fee_raw: fee, assets };
}

export async function prepared(ctx: Context, store: ListingStore, address: string) {
  const now = nowSeconds(ctx.clock);
  const balances = await ctx.chain.counterparty.getAddressBalances(address);
  const byUtxo = new Map<string, typeof balances>();
  for (const b of balances) {
    if (!b.utxo || b.quantity_raw === '0') continue;
    byUtxo.set(b.utxo, [...(byUtxo.get(b.utxo) ?? []), b]);
  }
  // Units on the address's co-signed outputs (their Counterparty holder is that output's address).
  const cosigned = await store.db
    .selectFrom('listing_drafts')
    .select('asset_outpoint')
    .distinct()
    .where('seller', '=', address)
    .where('protocol_subtype', '=', 'cosigned')
    .where('asset_outpoint', 'is not', null)
    .limit(MAX_PREPARED)
    .execute();
  const cosignedAt = new Set(cosigned.map((c) => c.asset_outpoint!));
  const cosignedBalances = await mapPool([...cosignedAt], 4, (utxo) => ctx.chain.counterparty.getUtxoBalances(utxo));
  for (const [i, utxo] of [...cosignedAt].entries()) {
    const held = cosignedBalances[i]!.filter((b) => b.quantity_raw !== '0');
    if (held.length) byUtxo.set(utxo, held);
  }
  const units = [...byUtxo.entries()].filter(([, rows]) => rows.length === 1).slice(0, MAX_PREPARED);
  const outs = await mapPool(units, 4, async ([utxo]) => {
    const { txid, vout } = splitOutpoint(utxo);
    return ctx.chain.bitcoin.getTxOut(txid, vout, true);
  });
  const keys = units.map(([utxo]) => utxo);
  const live = keys.length
    ? await store.db.selectFrom('listings').selectAll().where('utxo_outpoint', 'in', keys).where('state', 'in', LIVE).execute()
    : [];
  const listingAt = new Map(live.map((l) => [l.utxo_outpoint, l]));
  const rows = [];
  for (const [i, [utxo, [b]]] of units.entries()) {
    const out = outs[i];
    const custody = cosignedAt.has(utxo) ? ('cosigned' as const) : ('address' as const);
    if (!out || out.confirmations < 1 || (custody === 'address' && out.address !== address)) continue;
    const { txid, vout } = splitOutpoint(utxo);
    const l = listingAt.get(utxo);
    const ls = l ? listingState(l, now) : undefined;
    const open = ls && ls.state !== 'ended';
    rows.push({
      asset: b!.asset,
      asset_longname: b!.asset_longname,
      quantity_raw: b!.quantity_raw,
      asset_utxo: { txid, vout, utxo_value_sats: out.value_sats },
      confirmations: out.confirmations,
      listing_id: open ? l!.id : null,
      listing_status: open ? ls.state : null,
      listed_price_sats: open ? l!.price_sats : null,
      custody,
    });
  }
  return rows.sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : a.asset_utxo.txid.localeCompare(b.asset_utxo.txid) || a.asset_utxo.vout - b.asset_utxo.vout));
}
