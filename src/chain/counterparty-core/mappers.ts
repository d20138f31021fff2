/**
 * Rows of Counterparty Core API v2 replies (shapes from Core's own OpenAPI
 * examples, see test/fixtures/counterparty-core) mapped to the port's types. Every
 * quantity leaves here as a canonical decimal string.
 */
import { UpstreamUnavailable, type AddressUtxo, type CpAssetInfo, type CpBalance, type CpEvent } from '../ports.js';
import { rawQuantity } from './safe-json.js';

/** Rows of the balance routes (`/addresses/{a}/balances`, `/utxos/{u}/balances`). */
export interface CpBalanceRow {
  address?: string | null;
  asset: string;
  asset_longname?: string | null;
  quantity: number | string;
  utxo?: string | null;
  utxo_address?: string | null;
  /** With `verbose=true`: the asset's info, whose `asset_longname` a balance row itself leaves null. */
  asset_info?: { asset_longname?: string | null } | null;
}

/** `/assets/{asset}` */
export interface CpAssetRow {
  asset: string;
  /** Null for XCP (Core's assets_info row for XCP has no id). */
  asset_id: string | number | null;
  asset_longname: string | null;
  issuer: string | null;
  owner: string | null;
  divisible: boolean | number;
  locked: boolean | number;
  supply: number | string;
  description: string | null;
  first_issuance_block_index?: number | null;
}

/** `/blocks/{n}/events` rows (`block_index` appears only on the cross-block routes). */
export interface CpEventRow {
  event_index: number;
  event: string;
  tx_hash: string | null;
  block_index?: number;
  params: Record<string, unknown> | string;
}

/**
 * `/bitcoin/addresses/{a}/utxos`: Core proxies its Esplora-compatible indexer
 * (`status.block_height`); older releases (addrindexrs) gave `height`/`confirmations`.
 */
export interface CpBitcoinUtxoRow {
  txid: string;
  vout: number;
  value: number;
  status?: { confirmed: boolean; block_height?: number | null };
  height?: number | null;
  confirmations?: number;
}

/** Core writes this block index on rows that are still in the mempool. */
export const MEMPOOL_BLOCK_INDEX = 9_999_999;

function quantityOf(value: unknown, what: string): string {
  const q = rawQuantity(value);
  if (q === null) throw new UpstreamUnavailable('counterparty', `counterparty: ${what} is not an integer quantity`, 502);
  return q;
}

export function balanceOf(row: CpBalanceRow): CpBalance {
  const utxo = row.utxo ?? null;
  return {
    asset: row.asset,
    // Core leaves a subasset's longname null on balance rows; verbose rows carry it in asset_info.
    asset_longname: row.asset_longname ?? row.asset_info?.asset_longname ?? null,
    quantity_raw: quantityOf(row.quantity, `quantity of ${row.asset}`),
    utxo,
    // For a UTXO balance the owner is the address holding the UTXO.
    address: utxo ? (row.utxo_address ?? null) : (row.address ?? null),
  };
}

/** Counterparty's protocol ids of its two built-in assets (BTC 0, XCP 1), which Core's asset rows leave null. */
const BUILTIN_ASSET_IDS: Record<string, string> = { BTC: '0', XCP: '1' };

function assetIdOf(row: CpAssetRow): string {
  const id = row.asset_id === null || row.asset_id === undefined ? null : rawQuantity(row.asset_id);
  if (id !== null) return id;
  const builtin = BUILTIN_ASSET_IDS[row.asset];
  if (builtin !== undefined) return builtin;
  throw new UpstreamUnavailable('counterparty', `counterparty: asset ${row.asset} has no asset_id`, 502);
}

export function assetInfoOf(row: CpAssetRow): CpAssetInfo {
  return {
    asset: row.asset,
    asset_id: assetIdOf(row),
    asset_longname: row.asset_longname ?? null,
    divisible: Boolean(row.divisible),
    locked: Boolean(row.locked),
    supply_raw: quantityOf(row.supply, `supply of ${row.asset}`),
    issuer: row.issuer ?? null,
    owner: row.owner ?? null,
    description: row.description ?? '',
    // An issuance still in the mempool has no block yet.
    first_issuance_block_index:
      row.first_issuance_block_index == null || row.first_issuance_block_index === MEMPOOL_BLOCK_INDEX
        ? null
        : row.first_issuance_block_index,
  };
}

/** Older Core releases stored `params` as a JSON string; newer ones send the object. */
export function eventOf(row: CpEventRow, blockIndex: number, parse: (text: string) => unknown): CpEvent {
  const params = typeof row.params === 'string' ? (parse(row.params) as Record<string, unknown>) : row.params;
  return {
    event_index: row.event_index,
    event: row.event,
    tx_hash: row.tx_hash ?? null,
    block_index: row.block_index ?? blockIndex,
    params: params ?? {},
  };
}

export function addressUtxoOf(row: CpBitcoinUtxoRow, bitcoinHeight: number | null): AddressUtxo {
  const height = row.status ? (row.status.confirmed ? (row.status.block_height ?? null) : null) : (row.height ?? null);
  let confirmations = 0;
  if (height !== null && height > 0) {
    confirmations = bitcoinHeight !== null ? Math.max(0, bitcoinHeight - height + 1) : (row.confirmations ?? 1);
  }
  return { txid: row.txid, vout: row.vout, value_sats: row.value, height: height && height > 0 ? height : null, confirmations };
}
