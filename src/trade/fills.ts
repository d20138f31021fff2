/**
 * Trade kernel: owns the fill ledger.
 *
 * The one writer of fills. A fill is written in the transaction that claims and
 * journals its settlement, and then follows the settlement (see fill-tables.ts):
 * pending → confirmed (a block) → pending (a reorg) …, or → dropped (released).
 * Checkout, exact-offer accepts and policy accepts all record their sales here.
 * Each step appends what the feeds show to the event log (event-rows.ts): the
 * public `sale` (again when its confirmed_at changes) and the seller's
 * `listing_filled`; `sale_confirmed` / `purchase_confirmed` on a block, retracted by
 * a reorg; a release retracts the sale and its `listing_filled`.
 */
import crypto from 'node:crypto';
import type { Tx } from '../store/db.js';
import { insertRows } from '../store/insert-rows.js';
import type { FillTables } from './fill-tables.js';
import { eventId } from './event-rows.js';
import { logFillOwnerEvent, logSale, retractOwnerEvent, retractPublicEvent } from './event-rows.js';

export type FillRecord = FillTables['fills'];

/** Stable id of a sale: the same (txid, listing or offer) is always the same fill. */
export const fillId = (txid: string, refId: string) => `fill_${crypto.createHash('sha256').update(`${txid}\n${refId}`).digest('hex').slice(0, 32)}`;

type SoldUnit = { id: string; state: string; utxo_txid: string; utxo_vout: number };

/**
 * The sale as the settlement is journaled: pending until a block confirms it. `units`: the sold
 * listings as they stand in `tx` now, when the caller holds them already (a checkout has just
 * claimed them); otherwise they are read.
 */
export async function recordFills(tx: Tx, rows: Omit<FillRecord, 'id' | 'state' | 'confirmed_at' | 'block_index' | 'created_at' | 'updated_at'>[], at: number, units?: SoldUnit[]): Promise<void> {
  if (!rows.length) return;
  const fills = rows.map((r) => ({ ...r, id: fillId(r.txid, r.ref_id), state: 'pending' as const, confirmed_at: null, block_index: null, created_at: at, updated_at: at }));
  await insertRows(tx, 'fills', fills);
  const listingIds = fills.filter((f) => f.kind === 'listing').map((f) => f.ref_id);
  const listings = units ?? (listingIds.length ? await tx.selectFrom('listings').select(['id', 'state', 'utxo_txid', 'utxo_vout']).where('id', 'in', listingIds).execute() : []);
  const byId = new Map(listings.map((l) => [l.id, l]));
  for (const f of fills) {
    logSale(tx, f);
    const l = byId.get(f.ref_id);
    if (f.kind === 'listing') logFillOwnerEvent(tx, f, 'listing_filled', l?.state ?? f.state, l ?? null);
  }
}

/** The units of the listings a settlement's fills sold, for the owner feed's fill events. */
async function units(tx: Tx, fills: FillRecord[]) {
  const ids = fills.filter((f) => f.kind === 'listing').map((f) => f.ref_id);
  const rows = ids.length ? await tx.selectFrom('listings').select(['id', 'utxo_txid', 'utxo_vout']).where('id', 'in', ids).execute() : [];
  return new Map(rows.map((l) => [l.id, l]));
}

/** The settlement was released (refused or conflicted): its sales never happened. */
export async function dropFills(tx: Tx, settlementId: string, at: number): Promise<void> {
  const dropped = await tx.updateTable('fills').set({ state: 'dropped', updated_at: at }).where('settlement_id', '=', settlementId).where('state', '=', 'pending').returningAll().execute();
  for (const f of dropped) {
    retractPublicEvent(tx, eventId('sale', f.id), at);
    if (f.kind === 'listing') retractOwnerEvent(tx, f.seller, eventId('listing_filled', f.id), at);
  }
}

/** The settlement confirmed in block `height`, seen at `at`. */
export async function confirmFills(tx: Tx, settlementId: string, height: number, at: number): Promise<void> {
  const confirmed = await tx.updateTable('fills').set({ state: 'confirmed', confirmed_at: at, block_index: height, updated_at: at }).where('settlement_id', '=', settlementId).returningAll().execute();
  const unit = await units(tx, confirmed);
  for (const f of confirmed) {
    logSale(tx, f);
    logFillOwnerEvent(tx, f, 'sale_confirmed', 'confirmed', unit.get(f.ref_id) ?? null);
    logFillOwnerEvent(tx, f, 'purchase_confirmed', 'confirmed', unit.get(f.ref_id) ?? null);
  }
}

/** A reorg disconnected the confirming block: the sale is in flight again. */
export async function unconfirmFills(tx: Tx, settlementId: string, at: number): Promise<void> {
  const undone = await tx
    .updateTable('fills')
    .set({ state: 'pending', confirmed_at: null, block_index: null, updated_at: at })
    .where('settlement_id', '=', settlementId)
    .where('state', '=', 'confirmed')
    .returningAll()
    .execute();
  for (const f of undone) {
    logSale(tx, f);
    retractOwnerEvent(tx, f.seller, eventId('sale_confirmed', f.id), at);
    retractOwnerEvent(tx, f.buyer, eventId('purchase_confirmed', f.id), at);
  }
}

/** The refs (listing or offer ids) of a settlement's fills of one kind. */
export async function fillRefs(tx: Tx, settlementId: string, kind: FillRecord['kind']): Promise<string[]> {
  const rows = await tx.selectFrom('fills').select('ref_id').where('settlement_id', '=', settlementId).where('kind', '=', kind).execute();
  return rows.map((r) => r.ref_id);
}
