/**
 * Checks and naming for the devnet's control issuances and credits, before they become
 * operations in a block. Names follow Core: a named asset must be free; a subasset longname
 * maps to a numeric `A…` name (Core's regtest choice, shake-256 of the longname, stepping past
 * taken names); with neither, a free numeric name is picked.
 */
import { decodeAddress } from '../../bitcoin/address.js';
import type { Network } from '../../bitcoin/networks.js';
import {
  BTC, MAX_QUANTITY, XCP, isCanonicalAssetId, isNumericAsset, parseSubassetLongname, regtestSubassetName,
} from '../../counterparty/asset-names.js';
import type { ControlOp } from './control-ops.js';
import type { CpLedger } from './ledger.js';
import { DevnetUsageError } from './usage-error.js';

export interface IssueParams {
  asset?: string;
  longname?: string;
  issuer: string;
  quantity_raw: string;
  divisible: boolean;
  description?: string;
  locked?: boolean;
}

function quantity(raw: string, allowZero: boolean): bigint {
  if (typeof raw !== 'string' || !/^(0|[1-9][0-9]*)$/.test(raw)) throw new DevnetUsageError(`devnet: quantity_raw must be a decimal integer string, got ${String(raw)}`);
  const q = BigInt(raw);
  if ((!allowZero && q === 0n) || q > MAX_QUANTITY) throw new DevnetUsageError(`devnet: quantity ${raw} out of range`);
  return q;
}

function address(a: string, network: Network): string {
  if (!decodeAddress(a, network).ok) throw new DevnetUsageError(`devnet: ${a} is not a ${network} address`);
  return a;
}

export function planIssuance(ledger: CpLedger, p: IssueParams, network: Network): Extract<ControlOp, { kind: 'issue' }> {
  const issuer = address(p.issuer, network);
  const q = quantity(p.quantity_raw, true);
  let asset = p.asset;
  const longname = p.longname ?? null;
  if (longname !== null) {
    const check = parseSubassetLongname(longname);
    if (!check.ok) throw new DevnetUsageError(`devnet: ${longname}: ${check.error}`);
    const owner = ledger.longnames.get(longname);
    if (owner && asset !== undefined && owner !== asset) throw new DevnetUsageError(`devnet: ${longname} already names ${owner}`);
    if (owner) asset = owner;
    if (asset === undefined) {
      let add = 0;
      while (ledger.assets.has(regtestSubassetName(longname, add))) add++;
      asset = regtestSubassetName(longname, add);
    }
    if (!isNumericAsset(asset)) throw new DevnetUsageError('devnet: a subasset is named by a numeric A… id');
  }
  if (asset === undefined) {
    let add = 0;
    while (ledger.assets.has(regtestSubassetName(`devnet:${issuer}:${ledger.assets.size}`, add))) add++;
    asset = regtestSubassetName(`devnet:${issuer}:${ledger.assets.size}`, add);
  }
  if (asset === XCP || asset === BTC || !isCanonicalAssetId(asset)) throw new DevnetUsageError(`devnet: ${asset} is not an issuable asset name`);
  const existing = ledger.assets.get(asset);
  if (existing) {
    // Reissuing is for whoever holds the rights now (Core's current issuer, `owner` in its asset record).
    const holder = existing.owner ?? existing.issuer;
    if (holder !== issuer) throw new DevnetUsageError(`devnet: ${asset} belongs to ${holder}`);
    if (existing.locked && q > 0n) throw new DevnetUsageError(`devnet: ${asset} is locked`);
    if (existing.divisible !== p.divisible) throw new DevnetUsageError(`devnet: ${asset} divisibility cannot change`);
  }
  return {
    kind: 'issue', asset, longname: existing ? existing.asset_longname : longname, issuer, quantity: q.toString(),
    divisible: p.divisible, description: p.description ?? existing?.description ?? '', locked: p.locked ?? false,
  };
}

export function planCredit(ledger: CpLedger, p: { address: string; asset: string; quantity_raw: string }, network: Network): Extract<ControlOp, { kind: 'credit' }> {
  const to = address(p.address, network);
  const rec = ledger.resolveAsset(p.asset);
  if (!rec) throw new DevnetUsageError(`devnet: unknown asset ${p.asset} (issue it first)`);
  return { kind: 'credit', address: to, asset: rec.asset, quantity: quantity(p.quantity_raw, false).toString() };
}

/** Moves an asset's issuance rights from its current owner to `to` (Core: an issuance with a transfer destination). */
export function planTransfer(ledger: CpLedger, p: { asset: string; from: string; to: string }, network: Network): Extract<ControlOp, { kind: 'transfer' }> {
  const from = address(p.from, network);
  const to = address(p.to, network);
  const rec = ledger.resolveAsset(p.asset);
  if (!rec || rec.asset === XCP) throw new DevnetUsageError(`devnet: unknown asset ${p.asset} (issue it first)`);
  const holder = rec.owner ?? rec.issuer;
  if (holder !== from) throw new DevnetUsageError(`devnet: ${rec.asset} belongs to ${holder}, not ${from}`);
  if (to === from) throw new DevnetUsageError(`devnet: ${rec.asset} already belongs to ${to}`);
  return { kind: 'transfer', asset: rec.asset, from, to };
}
