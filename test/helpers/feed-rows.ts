/**
 * Direct inserts of the rows the feeds read, for cases the real flows cannot reach yet (fills
 * are written by the checkout) or that need many rows at chosen times. Shapes follow
 * src/modules/listings/tables.ts and src/modules/fills/tables.ts.
 */
import crypto from 'node:crypto';
import type { Db } from '../../src/store/db.js';
import type { FillTables } from '../../src/trade/fill-tables.js';
import type { ListingTables } from '../../src/modules/listings/tables.js';

type Listing = ListingTables['listings'];
type Fill = FillTables['fills'];

export const hex32 = () => crypto.randomBytes(32).toString('hex');

export async function insertListing(db: Db, over: Partial<Listing> & Pick<Listing, 'seller' | 'asset'>): Promise<Listing> {
  const row = listingRow(over);
  await db.insertInto('listings').values(row).execute();
  return row;
}

/** An active listing's row (what insertListing inserts), for a test that creates it through the lifecycle. */
export function listingRow(over: Partial<Listing> & Pick<Listing, 'seller' | 'asset'>): Listing {
  const txid = over.utxo_txid ?? hex32();
  const vout = over.utxo_vout ?? 0;
  const t = over.created_at ?? 1_700_000_000;
  return {
    id: `lst_${crypto.randomBytes(12).toString('hex')}`,
    operation_id: `op_${crypto.randomBytes(12).toString('hex')}`,
    draft_id: `pf_${crypto.randomBytes(12).toString('hex')}`,
    quantity_raw: '1',
    utxo_txid: txid,
    utxo_vout: vout,
    utxo_outpoint: `${txid}:${vout}`,
    utxo_value_sats: 330,
    price_sats: 10_000,
    state: 'active',
    end_reason: null,
    signed_psbt: '70736274ff01000000',
    version: 1,
    expires_at: t + 86_400,
    created_at: t,
    updated_at: t,
    activated_at: t,
    ended_at: null,
    utxo_height: null,
    spent_height: null,
    exposed_at: null,
    exposure_reason: null,
    protocol_subtype: 'plain',
    cosign_seller_key: null,
    cosign_market_key: null,
    cosign_key_version: null,
    ...over,
  };
}

export async function insertFill(db: Db, over: Partial<Fill> & Pick<Fill, 'seller' | 'buyer' | 'asset' | 'broadcast_at'>): Promise<Fill> {
  const txid = over.txid ?? hex32();
  const ref = over.ref_id ?? `lst_${crypto.randomBytes(12).toString('hex')}`;
  const row: Fill = {
    id: `fill_${crypto.createHash('sha256').update(`${txid}:${ref}`).digest('hex').slice(0, 32)}`,
    settlement_id: `st_${crypto.randomBytes(8).toString('hex')}`,
    txid,
    kind: 'listing',
    ref_id: ref,
    asset_longname: null,
    quantity_raw: '1',
    payer: over.buyer,
    price_sats: 20_000,
    platform_fee_sats: 400,
    delivery_mode: 'detached',
    state: 'pending',
    confirmed_at: null,
    block_index: null,
    created_at: over.broadcast_at,
    updated_at: over.broadcast_at,
    ...over,
  };
  await db.insertInto('fills').values(row).execute();
  return row;
}

/** What the indexer does to a fill when its block is seen, and what a reorg undoes. */
export const confirmFill = (db: Db, id: string, at: number, height: number) =>
  db.updateTable('fills').set({ state: 'confirmed', confirmed_at: at, block_index: height, updated_at: at }).where('id', '=', id).execute();
export const unconfirmFill = (db: Db, id: string, at: number) =>
  db.updateTable('fills').set({ state: 'pending', confirmed_at: null, block_index: null, updated_at: at }).where('id', '=', id).execute();
export const dropFill = (db: Db, id: string, at: number) =>
  db.updateTable('fills').set({ state: 'dropped', updated_at: at }).where('id', '=', id).execute();
