/**
 * Trade kernel: owns the public shape of a fill.
 *
 * The spec's fill row, written once: its schema (for validation and the OpenAPI document), the
 * columns it reads (fills as f) and the mapping from a stored fill. GET /v1/fills and the
 * collection book both answer with it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Sats, Txid, UnixSeconds } from '../http/validators.js';
import type { FillTables } from './fill-tables.js';

export const FillRow = Type.Object(
  {
    txid: { ...Txid, description: 'The settlement transaction; a cart settles several fills in one transaction' },
    kind: Type.Union([Type.Literal('listing'), Type.Literal('offer')], { description: '`listing` (checkout of a listing) or `offer` (an accepted offer)' }),
    ref_id: Type.String({ description: 'The listing id (kind listing) or the offer id (kind offer)' }),
    asset: Type.String({ description: 'Canonical compact asset id' }),
    asset_longname: Nullable(Type.String({ description: 'Subasset longname, display only' })),
    seller: Type.String(),
    buyer: Type.String({ description: 'The delivery address: who received the unit (not necessarily who paid)' }),
    price_sats: Sats({ minimum: 1 }),
    platform_fee_sats: Sats(),
    delivery_mode: Type.Union([Type.Literal('detached'), Type.Literal('attached')]),
    broadcast_at: { ...UnixSeconds, description: 'When the market journaled and first broadcast the settlement' },
    confirmed_at: Nullable({ ...UnixSeconds, description: 'When the market first saw the confirming block (not block time); null while unconfirmed' }),
    block_index: Nullable(Type.Integer({ minimum: 0, description: 'Height of the confirming block; null while unconfirmed' })),
  },
  { title: 'Fill', additionalProperties: false, description: 'One unit sold. Pending (unconfirmed) fills have confirmed_at and block_index null; dropped fills never appear.' },
);
export type Fill = Static<typeof FillRow>;

/** The columns a fill row reads (fills as f), with the state that decides whether it shows a confirmation. */
export const FILL_COLUMNS = [
  'f.state',
  'f.txid',
  'f.kind',
  'f.ref_id',
  'f.asset',
  'f.asset_longname',
  'f.seller',
  'f.buyer',
  'f.price_sats',
  'f.platform_fee_sats',
  'f.delivery_mode',
  'f.broadcast_at',
  'f.confirmed_at',
  'f.block_index',
] as const;

export type StoredFill = Pick<
  FillTables['fills'],
  'state' | 'txid' | 'kind' | 'ref_id' | 'asset' | 'asset_longname' | 'seller' | 'buyer' | 'price_sats' | 'platform_fee_sats' | 'delivery_mode' | 'broadcast_at' | 'confirmed_at' | 'block_index'
>;

/** The public fill row; a fill a reorg returned to pending shows no confirmation. */
export function fillRow(f: StoredFill): Fill {
  const confirmed = f.state === 'confirmed';
  return {
    txid: f.txid,
    kind: f.kind,
    ref_id: f.ref_id,
    asset: f.asset,
    asset_longname: f.asset_longname ?? null,
    seller: f.seller,
    buyer: f.buyer,
    price_sats: Number(f.price_sats),
    platform_fee_sats: Number(f.platform_fee_sats),
    delivery_mode: f.delivery_mode,
    broadcast_at: Number(f.broadcast_at),
    confirmed_at: confirmed && f.confirmed_at !== null ? Number(f.confirmed_at) : null,
    block_index: confirmed && f.block_index !== null ? Number(f.block_index) : null,
  };
}
