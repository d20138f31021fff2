/**
 * Offer targets as a bidder draws them (an asset, a collection, or a collection narrowed by a
 * trait of the run's catalog), and the simulator's own reading of which units a target takes.
 * The predicate is written here from the contract's words, not imported from the market, so the
 * `offer_targets` invariant compares the market's fills with an independent reading.
 */
import type { Rng } from './rng.js';
import type { TargetInput } from '../src/modules/market/index.js';

/** An asset's catalogue entry, as the run imports it (one collection per asset). */
export interface CatalogEntry {
  asset: string;
  collection: string;
  max_supply_units: number;
  issued_year: number;
  series: number;
}

/** A target as a request names it (the wire shape only; the predicate below is the simulator's own). */
export type Target = TargetInput & { scope: 'asset' | 'collection' };

/**
 * A target on `slug`: an asset of it, the whole collection, or the collection narrowed by one
 * trait (a year, a series, a supply bound) read off one of its assets, so that at least one
 * asset matches and, most often, not all do.
 */
export function drawTarget(entries: CatalogEntry[], rng: Rng, slug: string): Target {
  const members = entries.filter((e) => e.collection === slug);
  if (!members.length) return { scope: 'collection', collection: slug };
  const e = rng.pick(members);
  switch (rng.int(0, 5)) {
    case 0:
    case 1:
      return { scope: 'asset', asset: e.asset };
    case 2:
      return { scope: 'collection', collection: slug };
    case 3:
      return { scope: 'collection', collection: slug, issued_year: e.issued_year };
    case 4:
      return { scope: 'collection', collection: slug, series: e.series };
    default:
      return rng.chance(0.5) ? { scope: 'collection', collection: slug, max_supply_units: e.max_supply_units } : { scope: 'collection', collection: slug, min_supply_units: e.max_supply_units };
  }
}

/** Whether a unit of `e` fills `t`: its asset (and collection, when named), or a member meeting every trait bound. */
export function targetTakes(t: Target, e: CatalogEntry | undefined): boolean {
  if (t.scope === 'asset') return !!e && t.asset === e.asset && (t.collection == null || t.collection === e.collection);
  if (!e || e.collection !== t.collection) return false;
  if (t.issued_year != null && e.issued_year !== t.issued_year) return false;
  if (t.series != null && e.series !== t.series) return false;
  if (t.max_supply_units != null && !(e.max_supply_units <= t.max_supply_units)) return false;
  if (t.min_supply_units != null && !(e.max_supply_units >= t.min_supply_units)) return false;
  // The run's catalogue names no artists: a target naming one takes nothing of it.
  return t.artist == null;
}

/** Distinct targets only: a bidder names an alternative once. */
export function distinct<T extends Target>(targets: T[]): T[] {
  const seen = new Set<string>();
  return targets.filter((t) => {
    const { price_sats: _p, ...key } = t as T & { price_sats?: number };
    const k = JSON.stringify(Object.entries(key).sort());
    return !seen.has(k) && !!seen.add(k);
  });
}
