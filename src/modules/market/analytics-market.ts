/**
 * The analytics read's market line and depth, from the kept aggregates (migration 080,
 * analytics-totals-tables.ts) less what is still `active` past its expiry: the kept rows ignore
 * expiry, and the expiry job ends such rows, so that set is small (an index range on
 * (state, expires_at)). The answer is the one `publicFillable` and the live-offer rules give.
 * Three statements, independent of each other (PostgreSQL runs them side by side).
 */
import { sql } from 'kysely';
import type { Db } from '../../store/db.js';

const n = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export interface MarketLine {
  listings: number;
  asking_value_sats: number;
  sellers: number;
  open_offers: number;
  bidders: number;
}

/** Kept levels read beyond the asked ones, for levels that expiry empties; more expired prices than this read again. */
const SPARE = 32;

/** `levels` kept (price → count) with `deltas` applied, the first `limit` with a count left, in the kept order. */
function applied(levels: Array<[number, number]>, deltas: Map<number, number>, limit: number, desc: boolean): Array<[number, number]> {
  const at = new Map(levels);
  for (const [p, d] of deltas) at.set(p, (at.get(p) ?? 0) + d);
  return [...at.entries()]
    .filter(([, c]) => c > 0)
    .sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0]))
    .slice(0, limit);
}

const expiredListings = (asOf: number) => sql`SELECT l.seller, l.price_sats FROM listings l WHERE l.state = 'active' AND l.expires_at <= ${asOf}`;
const expiredBids = (asOf: number) => sql`
  SELECT o.slot_id AS backing, o.bidder FROM offers o WHERE o.state = 'active' AND o.target_txid IS NULL AND o.expires_at <= ${asOf}
  UNION ALL
  SELECT p.funding_set_id, p.bidder FROM policy_offers p WHERE p.state = 'active' AND p.expires_at <= ${asOf}`;
const count = (name: string) => sql`(SELECT c.n FROM analytics_counts c WHERE c.name = ${name})`;

type Tagged = { tag: string; a: unknown; b: unknown };

export class AnalyticsMarket {
  constructor(private readonly db: Db) {}

  async read(asOf: number, levels: number): Promise<{ market: MarketLine; asks: Array<[number, number]>; bids: Array<[number, number]> }> {
    const [line, asks, bids] = await Promise.all([this.line(asOf), this.asks(asOf, levels), this.bids(asOf, levels)]);
    return { market: { ...line, open_offers: line.open_offers - bids.gone }, asks, bids: bids.levels };
  }

  /** The kept counts less the expired listings, and the sellers and bidders left with nothing live. */
  private async line(asOf: number): Promise<MarketLine> {
    const r = await sql<Record<string, unknown>>`SELECT
      ${count('listings')} AS listings, ${count('value')} AS value, ${count('sellers')} AS sellers,
      ${count('backings')} AS backings, ${count('bidders')} AS bidders,
      (SELECT count(*) FROM (${expiredListings(asOf)}) e) AS gone_listings,
      (SELECT sum(e.price_sats) FROM (${expiredListings(asOf)}) e) AS gone_value,
      (SELECT count(*) FROM (SELECT e.seller, count(*) AS n FROM (${expiredListings(asOf)}) e GROUP BY e.seller) g
         JOIN analytics_sellers s ON s.seller = g.seller WHERE g.n >= s.listings) AS gone_sellers,
      (SELECT count(*) FROM (SELECT e.bidder, count(*) AS n FROM (${expiredBids(asOf)}) e GROUP BY e.bidder) g
         JOIN analytics_bidders b ON b.bidder = g.bidder WHERE g.n >= b.offers) AS gone_bidders`.execute(this.db);
    const x = r.rows[0]!;
    return {
      listings: n(x.listings) - n(x.gone_listings),
      asking_value_sats: n(x.value) - n(x.gone_value),
      sellers: n(x.sellers) - n(x.gone_sellers),
      open_offers: n(x.backings),
      bidders: n(x.bidders) - n(x.gone_bidders),
    };
  }

  /** Kept ask levels, and the expired listings per price (each can empty at most one level: read that many more). */
  private async asks(asOf: number, levels: number, spare = SPARE): Promise<Array<[number, number]>> {
    const r = await sql<Tagged>`
      SELECT 'e' AS tag, e.price_sats AS a, count(*) AS b FROM (${expiredListings(asOf)}) e GROUP BY e.price_sats
      UNION ALL
      SELECT 'k', k.price_sats, k.listings FROM (SELECT a.price_sats, a.listings FROM analytics_ask_levels a ORDER BY a.price_sats LIMIT ${levels + spare}) k`.execute(this.db);
    const out = r.rows.filter((x) => x.tag === 'e');
    if (out.length > spare) return this.asks(asOf, levels, out.length);
    return applied(
      r.rows.filter((x) => x.tag === 'k').map((x) => [n(x.a), n(x.b)]),
      new Map(out.map((x) => [n(x.a), -n(x.b)])),
      levels,
      false,
    );
  }

  /**
   * Kept bid levels, and each backing with an expired live offer: its kept highest price beside
   * the one its unexpired offers bid now (none: the backing is gone). Each such backing can
   * empty at most one level.
   */
  private async bids(asOf: number, levels: number, spare = SPARE): Promise<{ levels: Array<[number, number]>; gone: number }> {
    const r = await sql<Tagged>`
      SELECT 't' AS tag, k.price_sats AS a,
        (SELECT max(x.price_sats) FROM (
           SELECT o.price_sats FROM offers o WHERE o.slot_id = t.backing AND o.state = 'active' AND o.target_txid IS NULL AND o.expires_at > ${asOf}
           UNION ALL
           SELECT p.price_sats FROM policy_offers p WHERE p.funding_set_id = t.backing AND p.state = 'active' AND p.expires_at > ${asOf}) x) AS b
      FROM (SELECT DISTINCT e.backing FROM (${expiredBids(asOf)}) e) t JOIN analytics_backings k ON k.backing = t.backing
      UNION ALL
      SELECT 'k', k.price_sats, k.backings FROM (SELECT l.price_sats, l.backings FROM analytics_bid_levels l ORDER BY l.price_sats DESC LIMIT ${levels + spare}) k`.execute(this.db);
    const touched = r.rows.filter((x) => x.tag === 't');
    if (touched.length > spare) return this.bids(asOf, levels, touched.length);
    const delta = new Map<number, number>();
    const step = (p: number, d: number) => delta.set(p, (delta.get(p) ?? 0) + d);
    let gone = 0;
    for (const t of touched) {
      step(n(t.a), -1);
      if (t.b === null || t.b === undefined) gone += 1;
      else step(n(t.b), 1);
    }
    return {
      levels: applied(
        r.rows.filter((x) => x.tag === 'k').map((x) => [n(x.a), n(x.b)]),
        delta,
        levels,
        true,
      ),
      gone,
    };
  }
}
