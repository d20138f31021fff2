/**
 * Counterparty asset names and ids, after Core's `ledger/issuances.py`
 * (`generate_asset_id`, `generate_asset_name`) and `utils/assetnames.py`.
 *
 * - BTC is id 0, XCP id 1 (neither is issuable).
 * - Named assets: 4–12 letters A–Z, not starting with `A`; the id is the base-26 value
 *   (so ≥ 26^3). 13+ letter names must be numeric.
 * - Numeric assets: `A` + a decimal id in [26^12 + 1, 2^64 − 1].
 * - Subassets: a longname `PARENT.child` is only an alias; the ledger keys the asset by a
 *   numeric `A…` name chosen at issuance (random on mainnet, a shake-256 of the longname
 *   on regtest, see `regtestSubassetName`).
 */
import { shake256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export const BTC = 'BTC';
export const XCP = 'XCP';
/** Every Counterparty quantity fits SQLite's signed 64-bit integer (Core's `MAX_INT`). */
export const MAX_QUANTITY = 2n ** 63n - 1n;
/** Satoshi-like unit of divisible assets (8 decimals). */
export const UNIT = 100_000_000n;

const B26 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const NUMERIC_ASSET_MIN = 26n ** 12n + 1n;
export const NUMERIC_ASSET_MAX = 2n ** 64n - 1n;
const SUBASSET_CHARS = /^[a-zA-Z0-9.\-_@!]+$/;

export class AssetNameError extends Error {
  constructor(message: string) {
    super(`asset name: ${message}`);
    this.name = 'AssetNameError';
  }
}

/** Asset id of a name (BTC → 0, XCP → 1); throws AssetNameError as Core does. */
export function assetIdFromName(name: string): bigint {
  if (name === BTC) return 0n;
  if (name === XCP) return 1n;
  if (name.length < 4) throw new AssetNameError('too short');
  if (name[0] === 'A') {
    const digits = name.slice(1);
    if (!/^[0-9]+$/.test(digits)) throw new AssetNameError("non-numeric asset name starts with 'A'");
    const id = BigInt(digits);
    if (id < NUMERIC_ASSET_MIN || id > NUMERIC_ASSET_MAX) throw new AssetNameError('numeric asset name not in range');
    return id;
  }
  if (name.length >= 13) throw new AssetNameError('long asset names must be numeric');
  let n = 0n;
  for (const c of name) {
    const digit = B26.indexOf(c);
    if (digit < 0) throw new AssetNameError(`invalid character: ${c}`);
    n = n * 26n + BigInt(digit);
  }
  return n;
}

/** Name of an asset id; throws AssetNameError for ids Core refuses. */
export function assetNameFromId(id: bigint): string {
  if (id === 0n) return BTC;
  if (id === 1n) return XCP;
  if (id < 26n ** 3n) throw new AssetNameError('id too low');
  if (id > NUMERIC_ASSET_MAX) throw new AssetNameError('id too high');
  if (id >= NUMERIC_ASSET_MIN) return `A${id}`;
  let n = id;
  let out = '';
  while (n > 0n) {
    out = B26[Number(n % 26n)]! + out;
    n /= 26n;
  }
  return out;
}

/** A named (alphabetic) asset: 4–12 letters A–Z, not starting with `A`, not BTC/XCP. */
export function isNamedAsset(name: string): boolean {
  return /^[B-Z][A-Z]{3,11}$/.test(name);
}

/** A numeric asset written canonically: `A` + decimal id in range, no leading zero. */
export function isNumericAsset(name: string): boolean {
  if (!/^A[1-9][0-9]{16,19}$/.test(name)) return false;
  const id = BigInt(name.slice(1));
  return id >= NUMERIC_ASSET_MIN && id <= NUMERIC_ASSET_MAX;
}

/**
 * True for the exact spelling the ledger keys balances by: XCP, a named asset or a canonical
 * numeric `A…` id. False for BTC (not a Counterparty balance), longnames, lowercase and
 * non-canonical numerics such as `A0…` (Core would parse them to the same id, so accepting
 * them would let two strings name one asset).
 */
export function isCanonicalAssetId(name: string): boolean {
  return name === XCP || isNamedAsset(name) || isNumericAsset(name);
}

export type LongnameCheck = { ok: true; parent: string; child: string } | { ok: false; error: string };

/**
 * Validates a subasset longname `PARENT.child` (Core's `parse_subasset_from_asset_name` with
 * subassets on numeric parents allowed, as on mainnet today).
 */
export function parseSubassetLongname(longname: string): LongnameCheck {
  const dot = longname.indexOf('.');
  if (dot < 0) return { ok: false, error: 'not a subasset longname' };
  const parent = longname.slice(0, dot);
  const child = longname.slice(dot + 1);
  if (parent === BTC || parent === XCP) return { ok: false, error: `parent asset cannot be ${parent}` };
  if (parent.length < 4) return { ok: false, error: 'parent asset name too short' };
  if (parent.length > 21) return { ok: false, error: 'parent asset name too long' };
  if (!isNamedAsset(parent) && !isNumericAsset(parent)) return { ok: false, error: 'invalid parent asset name' };
  if (child.length < 1) return { ok: false, error: 'subasset name too short' };
  if (longname.length > 250) return { ok: false, error: 'subasset name too long' };
  if (!SUBASSET_CHARS.test(child)) return { ok: false, error: 'subasset name contains invalid character' };
  if (child.startsWith('.') || child.includes('..')) return { ok: false, error: 'subasset name contains consecutive periods' };
  if (child.endsWith('.')) return { ok: false, error: 'subasset name ends with a period' };
  return { ok: true, parent, child };
}

export function isSubassetLongname(name: string): boolean {
  return parseSubassetLongname(name).ok;
}

/**
 * The numeric name Core gives a subasset on regtest (`gen_random_asset_name`): shake-256 of the
 * longname, 4 bytes, plus 26^12 + 1 (+ `add` to step past a taken name). Mainnet picks a random
 * numeric id instead; either way callers must look the mapping up, never recompute it.
 */
export function regtestSubassetName(longname: string, add = 0): string {
  const h = BigInt(`0x${bytesToHex(shake256(utf8ToBytes(longname), { dkLen: 4 }))}`);
  return `A${h + NUMERIC_ASSET_MIN + BigInt(add)}`;
}

/**
 * The ledger name of `asset`, which may be a canonical name or a subasset longname resolved
 * through `lookupLongname`; null when unknown or malformed.
 */
export function resolveAssetName(asset: string, lookupLongname: (longname: string) => string | null): string | null {
  if (isCanonicalAssetId(asset)) return asset;
  if (isSubassetLongname(asset)) return lookupLongname(asset);
  return null;
}
