/**
 * The one writer of fills. A fill is written in the transaction that claims and
 * journals its settlement, and then follows the settlement (see tables.ts):
 * pending → confirmed (a block) → pending (a reorg) …, or → dropped (released).
 * Checkout, exact-offer accepts and policy accepts all record their sales here.
 */
import crypto from 'node:crypto';
import type { Tx } from '../../store/db.js';
import type { FillTables } from './tables.js';

export type FillRecord = FillTables['fills'];

/** Stable id of a sale: the same (txid, listing or offer) is always the same fill. */
export const fillId = (txid: string, refId: string) => `fill_${crypto.createHash('sha256').update(`${txid}\n${refId}`).digest('hex').slice(0, 32)}`;

/** The sale as the settlement is journaled: pending until a block confirms it. */
export async function recordFills(tx: Tx, rows: Omit<FillRecord, 'id' | 'state' | 'confirmed_at' | 'block_index' | 'created_at' | 'updated_at'>[], at: number): Promise<void> {
  if (!rows.length) return;
  await tx
    .insertInto('fills')
    .values(rows.map((r) => ({ ...r, id: fillId(r.txid, r.ref_id), state: 'pending' as const, confirmed_at: null, block_index: null, created_at: at, updated_at: at })))
    .execute();
}

/** The settlement was released (refused or conflicted): its sales never happened. */
export async function dropFills(tx: Tx, settlementId: string, at: number): Promise<void> {
  await tx.updateTable('fills').set({ state: 'dropped', updated_at: at }).where('settlement_id', '=', settlementId).where('state', '=', 'pending').execute();
}

/** The settlement confirmed in block `height`, seen at `at`. */
export async function confirmFills(tx: Tx, settlementId: string, height: number, at: number): Promise<void> {
  await tx.updateTable('fills').set({ state: 'confirmed', confirmed_at: at, block_index: height, updated_at: at }).where('settlement_id', '=', settlementId).execute();
}

/** A reorg disconnected the confirming block: the sale is in flight again. */
export async function unconfirmFills(tx: Tx, settlementId: string, at: number): Promise<void> {
  await tx.updateTable('fills').set({ state: 'pending', confirmed_at: null, block_index: null, updated_at: at }).where('settlement_id', '=', settlementId).execute();
}

/** The refs (listing or offer ids) of a settlement's fills of one kind. */
export async function fillRefs(tx: Tx, settlementId: string, kind: FillRecord['kind']): Promise<string[]> {
  const rows = await tx.selectFrom('fills').select('ref_id').where('settlement_id', '=', settlementId).where('kind', '=', kind).execute();
  return rows.map((r) => r.ref_id);
}
