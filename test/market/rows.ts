/**
 * Listing and fill rows written straight into the store, for read-only tests of shape, order and
 * bounds (the seller and checkout flows that make them for real are tested in their own areas).
 */
import crypto from 'node:crypto';
import type { Db } from '../../src/store/db.js';
import type { ListingState } from '../../src/modules/listings/tables.js';
import type { FillState } from '../../src/trade/fill-tables.js';

export const SELLER = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
export const BUYER = 'bcrt1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l';

let seq = 0;
const hex32 = () => crypto.randomBytes(32).toString('hex');

export async function insertListing(
  db: Db,
  p: { asset: string; price_sats: number; now: number; state?: ListingState; expires_at?: number; created_at?: number; seller?: string; quantity_raw?: string; id?: string },
): Promise<string> {
  const txid = hex32();
  const id = p.id ?? `lst_t${String(++seq).padStart(8, '0')}`;
  await db
    .insertInto('listings')
    .values({
      id,
      operation_id: `op_${id}`,
      draft_id: `pf_${id}`,
      seller: p.seller ?? SELLER,
      asset: p.asset,
      quantity_raw: p.quantity_raw ?? '1',
      utxo_txid: txid,
      utxo_vout: 0,
      utxo_outpoint: `${txid}:0`,
      utxo_value_sats: 330,
      price_sats: p.price_sats,
      state: p.state ?? 'active',
      end_reason: null,
      signed_psbt: '70736274ff01',
      version: 1,
      expires_at: p.expires_at ?? p.now + 86_400,
      created_at: p.created_at ?? p.now,
      updated_at: p.now,
      activated_at: p.now,
      ended_at: null,
      protocol_subtype: 'plain',
    })
    .execute();
  return id;
}

export async function insertFill(
  db: Db,
  p: { asset: string; price_sats: number; broadcast_at: number; state?: FillState; txid?: string; kind?: 'listing' | 'offer'; seller?: string; buyer?: string; asset_longname?: string | null },
): Promise<{ id: string; txid: string; ref_id: string }> {
  const txid = p.txid ?? hex32();
  const ref_id = `lst_f${String(++seq).padStart(8, '0')}`;
  const id = `fill_${crypto.createHash('sha256').update(`${txid}${ref_id}`).digest('hex').slice(0, 24)}`;
  const state = p.state ?? 'confirmed';
  await db
    .insertInto('fills')
    .values({
      id,
      settlement_id: `st_${txid.slice(0, 16)}`,
      txid,
      kind: p.kind ?? 'listing',
      ref_id,
      asset: p.asset,
      asset_longname: p.asset_longname ?? null,
      quantity_raw: '1',
      seller: p.seller ?? SELLER,
      buyer: p.buyer ?? BUYER,
      payer: p.buyer ?? BUYER,
      price_sats: p.price_sats,
      platform_fee_sats: Math.floor(p.price_sats / 100),
      delivery_mode: 'detached',
      state,
      broadcast_at: p.broadcast_at,
      confirmed_at: state === 'confirmed' ? p.broadcast_at + 600 : null,
      block_index: state === 'confirmed' ? 200 : null,
      created_at: p.broadcast_at,
      updated_at: p.broadcast_at,
    })
    .execute();
  return { id, txid, ref_id };
}
