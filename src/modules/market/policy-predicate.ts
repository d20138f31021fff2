/**
 * The offer target (eligibility policy) predicate, written once. The offer-targets read uses it
 * to show what a policy reaches; the collection-offer authorization must use the same two
 * functions, so a listed unit the read shows is exactly a unit the signer accepts.
 *
 * Normalization (`normalizeTarget`):
 * - `scope` is `asset` (needs `asset`, a canonical compact id) or `collection` (needs
 *   `collection`; `asset` must be absent). `collection`, when present on an asset-scope target,
 *   also requires membership.
 * - Trait filters are integers or null: `max_supply_units` and `min_supply_units` at least 1 and
 *   min ≤ max; `issued_year` and `series` at least 0.
 * - `artist` is trimmed; blank means no filter; at most 200 characters.
 * - `kind`: `asset` for asset scope, `trait` for a collection scope with any trait filter,
 *   else `collection`.
 *
 * Matching (`matchesTarget`), against one catalogue membership row of an asset (traits are per
 * collection membership; an asset matches when any of its rows does):
 * - `max_supply_units` N: the asset's curated max supply is known and ≤ N; `min_supply_units`
 *   N: known and ≥ N.
 * - `issued_year`, `series`: equal (an asset without the trait never matches a filter on it).
 * - `artist`: the credit, trimmed, equals the filter ASCII case-insensitively (A–Z only, the
 *   same on every storage backend); an asset without a credit never matches.
 *
 * Only a unit UTXO holding exactly one whole unit can accept a collection offer (`oneUnitRaw`):
 * 1 raw of an indivisible asset, 100000000 raw (1.00000000) of a divisible one.
 */
import { UNIT } from '../../counterparty/asset-names.js';
import { asciiLower } from './artist-keys.js';

export type TargetScope = 'asset' | 'collection';
export type TargetKind = 'asset' | 'collection' | 'trait';

export interface TargetInput {
  scope: string;
  asset?: string | null;
  collection?: string | null;
  max_supply_units?: number | null;
  min_supply_units?: number | null;
  issued_year?: number | null;
  series?: number | null;
  artist?: string | null;
}

export interface PolicyTarget {
  scope: TargetScope;
  kind: TargetKind;
  asset: string | null;
  collection: string | null;
  max_supply_units: number | null;
  min_supply_units: number | null;
  issued_year: number | null;
  series: number | null;
  /** Trimmed credit as given (for display); null when no artist filter. */
  artist: string | null;
}

/** One catalogue membership row of an asset: the traits the predicate reads. */
export interface AssetTraits {
  asset: string;
  collection_slug: string;
  max_supply_units: number | null;
  issued_year: number | null;
  series: number | null;
  artist: string | null;
}

export type Normalized = { ok: true; target: PolicyTarget } | { ok: false; field: string; error: string };

export const MAX_ARTIST_LENGTH = 200;
const ASSET_ID = /^(XCP|[B-Z][A-Z]{3,11}|A[1-9][0-9]{16,19})$/;

const refuse = (field: string, error: string): Normalized => ({ ok: false, field, error });

function integer(v: number | null | undefined, min: number): number | null | 'bad' {
  if (v === null || v === undefined) return null;
  return Number.isSafeInteger(v) && v >= min ? v : 'bad';
}

/** Normalizes a target as a client or an offer placement gives it; refuses what can never be a policy. */
export function normalizeTarget(input: TargetInput): Normalized {
  if (input.scope !== 'asset' && input.scope !== 'collection') return refuse('scope', 'scope must be asset or collection');
  const asset = input.asset ?? null;
  const collection = input.collection ?? null;
  if (input.scope === 'asset' && (asset === null || !ASSET_ID.test(asset))) return refuse('asset', 'an asset-scope target needs a canonical compact asset id');
  if (input.scope === 'collection' && asset !== null) return refuse('asset', 'a collection-scope target names no asset');
  if (input.scope === 'collection' && (collection === null || collection === '')) return refuse('collection', 'a collection-scope target needs a collection');
  const ints: Record<'max_supply_units' | 'min_supply_units' | 'issued_year' | 'series', number | null> = {
    max_supply_units: null,
    min_supply_units: null,
    issued_year: null,
    series: null,
  };
  for (const [field, min] of [['max_supply_units', 1], ['min_supply_units', 1], ['issued_year', 0], ['series', 0]] as const) {
    const v = integer(input[field], min);
    if (v === 'bad') return refuse(field, `${field} must be an integer of at least ${min}`);
    ints[field] = v;
  }
  if (ints.min_supply_units !== null && ints.max_supply_units !== null && ints.min_supply_units > ints.max_supply_units) {
    return refuse('min_supply_units', 'min_supply_units is above max_supply_units: nothing can match');
  }
  const artist = input.artist?.trim() || null;
  if (artist !== null && artist.length > MAX_ARTIST_LENGTH) return refuse('artist', `artist is longer than ${MAX_ARTIST_LENGTH} characters`);
  const traits = Object.values(ints).some((v) => v !== null) || artist !== null;
  return {
    ok: true,
    target: {
      scope: input.scope,
      kind: input.scope === 'asset' ? 'asset' : traits ? 'trait' : 'collection',
      asset,
      collection,
      ...ints,
      artist,
    },
  };
}

/** True when one catalogue membership row of an asset satisfies the normalized target. */
export function matchesTarget(t: PolicyTarget, a: AssetTraits): boolean {
  if (t.scope === 'asset' && a.asset !== t.asset) return false;
  if (t.collection !== null && a.collection_slug !== t.collection) return false;
  if (t.max_supply_units !== null && (a.max_supply_units === null || a.max_supply_units > t.max_supply_units)) return false;
  if (t.min_supply_units !== null && (a.max_supply_units === null || a.max_supply_units < t.min_supply_units)) return false;
  if (t.issued_year !== null && a.issued_year !== t.issued_year) return false;
  if (t.series !== null && a.series !== t.series) return false;
  if (t.artist !== null && (a.artist === null || asciiLower(a.artist.trim()) !== asciiLower(t.artist))) return false;
  return true;
}

/** An asset (all its catalogue membership rows) is reached when any membership matches. */
export const assetMatches = (t: PolicyTarget, memberships: readonly AssetTraits[]): boolean => memberships.some((m) => matchesTarget(t, m));

/** The raw quantity of exactly one whole unit. */
export const oneUnitRaw = (divisible: boolean): string => (divisible ? UNIT.toString() : '1');

/** True when a listing or UTXO of `quantityRaw` holds exactly one whole unit. */
export const isOneUnit = (quantityRaw: string, divisible: boolean): boolean => quantityRaw === oneUnitRaw(divisible);

/** A stored row's (or a resolved target's) policy fields as a PolicyTarget: integers may come back from the database as strings. */
export function policyTargetOf(r: {
  scope: string;
  kind: string;
  asset: string | null;
  collection: string | null;
  max_supply_units: number | string | null;
  min_supply_units: number | string | null;
  issued_year: number | string | null;
  series: number | string | null;
  artist: string | null;
}): PolicyTarget {
  const n = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    scope: r.scope as TargetScope,
    kind: r.kind as TargetKind,
    asset: r.asset,
    collection: r.collection,
    max_supply_units: n(r.max_supply_units),
    min_supply_units: n(r.min_supply_units),
    issued_year: n(r.issued_year),
    series: n(r.series),
    artist: r.artist,
  };
}
