/**
 * Offer targets: the listed units a collection or trait policy would reach now. The catalogue
 * rows of the collection are tested with the one policy predicate (policy-predicate.ts), so
 * `matching_assets` and the listed rows agree with what the offer authorization will accept;
 * the listings of the matching assets are then read in price order with a LIMIT.
 */
import type { Db } from '../../store/db.js';
import { invalid, notFound } from '../../http/errors.js';
import { publicFillable } from './listing-stats.js';
import { assetMatches, normalizeTarget, oneUnitRaw, type PolicyTarget, type TargetInput } from './policy-predicate.js';
import { collectionMembers } from './memberships.js';
import { LISTING_COLUMNS, targetListingOf, type TargetListing } from './public-rows.js';

/** Assets per `in (…)` list, well under either backend's parameter limit. */
const CHUNK = 500;

export type TargetFilters = Omit<TargetInput, 'scope' | 'asset' | 'collection'>;

export interface OfferTargets {
  result: TargetListing[];
  result_count: number;
  matching_assets: number;
}

const cheapestFirst = (a: TargetListing, b: TargetListing) =>
  a.price_sats - b.price_sats || a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** matchesTarget's integer traits on the membership row `ca`, the same comparisons (an unknown trait never matches a filter on it). */
function traitFilter<Q extends { where: (...args: any[]) => Q }>(q: Q, t: PolicyTarget): Q {
  let out = q;
  if (t.max_supply_units !== null) out = out.where('ca.max_supply_units', 'is not', null).where('ca.max_supply_units', '<=', t.max_supply_units);
  if (t.min_supply_units !== null) out = out.where('ca.max_supply_units', 'is not', null).where('ca.max_supply_units', '>=', t.min_supply_units);
  if (t.issued_year !== null) out = out.where('ca.issued_year', '=', t.issued_year);
  if (t.series !== null) out = out.where('ca.series', '=', t.series);
  return out;
}

export class OfferTargetsService {
  constructor(
    private readonly db: Db,
    private readonly nowSeconds: () => number,
  ) {}

  async targets(slug: string, filters: TargetFilters, limit: number): Promise<OfferTargets> {
    const normalized = normalizeTarget({ scope: 'collection', collection: slug, ...filters });
    if (!normalized.ok) throw invalid(normalized.error, { field: `query.${normalized.field}` });
    const target = normalized.target;
    // The reads go side by side (on PostgreSQL on separate pool connections); an unknown slug
    // finds no rows in them, and is answered 404 all the same.
    const exists = this.db.selectFrom('collections').select('slug').where('slug', '=', slug).executeTakeFirst();
    const known = async <T>(reads: Promise<T>): Promise<T> => {
      const [found, out] = await Promise.all([exists, reads]);
      if (!found) throw notFound('collection');
      return out;
    };

    // A target without trait filters reaches every member (matchesTarget holds for each of its
    // rows by definition), so the rows need not be loaded to be counted.
    if (target.kind === 'collection') {
      const count = this.db.selectFrom('catalog_assets').select((eb) => eb.fn.countAll<number>().as('n')).where('collection_slug', '=', slug).executeTakeFirstOrThrow();
      const [{ n }, rows] = await known(Promise.all([count, this.listed(slug, null, limit)]));
      return { result: rows, result_count: rows.length, matching_assets: Number(n) };
    }
    // Without an artist filter the predicate is a few integer comparisons on the membership row:
    // asked in SQL (traitFilter, the same comparisons as matchesTarget), the members are counted
    // and the listings walked cheapest first like the unfiltered read, without loading the
    // collection. The artist's ASCII-only case folding is not the same SQL on both backends, so
    // with an artist the members are matched here and the matched assets named.
    if (target.artist === null) {
      const count = traitFilter(this.db.selectFrom('catalog_assets as ca').select((eb) => eb.fn.countAll<number>().as('n')).where('ca.collection_slug', '=', slug), target).executeTakeFirstOrThrow();
      const [counted, rows] = await known(Promise.all([count, this.listed(slug, null, limit, target)]));
      return { result: rows, result_count: rows.length, matching_assets: Number(counted.n) };
    }
    if (!(await exists)) throw notFound('collection');
    const members = await collectionMembers(this.db, slug);
    const matched = members.filter((m) => assetMatches(target, [m])).map((m) => m.asset);
    const rows = await this.listedAmong(slug, matched, limit);
    return { result: rows, result_count: rows.length, matching_assets: matched.length };
  }

  /** Listings in several chunks of assets: each chunk's cheapest `limit`, merged. */
  private async listedAmong(slug: string, assets: string[], limit: number): Promise<TargetListing[]> {
    const out: TargetListing[] = [];
    for (let i = 0; i < assets.length; i += CHUNK) out.push(...(await this.listed(slug, assets.slice(i, i + CHUNK), limit)));
    return out.sort(cheapestFirst).slice(0, limit);
  }

  /**
   * Public fillable listings of the collection's members (of `assets` when given) that hold
   * exactly one whole unit, cheapest first. The unit needs the asset's divisibility, which the
   * balance view records; an asset it has not read yet offers no targets.
   */
  private async listed(slug: string, assets: string[] | null, limit: number, traits?: PolicyTarget): Promise<TargetListing[]> {
    // Walked from the collection's own asks in price order (book_asks, kept by triggers), so the
    // cheapest listings of other collections are never read and skipped on the way, and the walk
    // stops at `limit` matches. CROSS JOIN keeps SQLite's loops in that order (PostgreSQL plans
    // it as any inner join): with statistics SQLite started from the catalogue's trait index
    // instead, read every listing of every matching asset and sorted them, 1.2 s for a trait
    // filter on a collection of 100,000 listings (bench/scale-read.ts) where the walk takes 1 ms.
    let q = this.db
      .selectFrom('book_asks as b')
      .crossJoin('listings as l')
      .crossJoin('catalog_assets as ca')
      .crossJoin('cp_assets as a')
      .whereRef('l.id', '=', 'b.listing_id')
      .whereRef('ca.asset', '=', 'l.asset')
      .where('ca.collection_slug', '=', slug)
      .whereRef('a.asset', '=', 'l.asset')
      .select(LISTING_COLUMNS)
      .where('b.collection_slug', '=', slug)
      .where(publicFillable(this.nowSeconds()))
      .where((eb) =>
        eb.or([
          eb.and([eb('a.divisible', '=', 1), eb('l.quantity_raw', '=', oneUnitRaw(true))]),
          eb.and([eb('a.divisible', '=', 0), eb('l.quantity_raw', '=', oneUnitRaw(false))]),
        ]),
      );
    if (assets) {
      if (assets.length === 0) return [];
      q = q.where('l.asset', 'in', assets);
    }
    if (traits) q = traitFilter(q, traits);
    const rows = await q.orderBy('b.price_sats').orderBy('b.created_at').orderBy('b.listing_id').limit(limit).execute();
    return rows.map(targetListingOf);
  }
}
