/**
 * The analytics read's sales figures over confirmed fills broadcast in [since, as_of], from the
 * kept aggregates (migration 080): the whole hours inside the window from the per-hour rows,
 * the whole minutes of the two partial hours at its edges from the per-minute rows, and the
 * seconds left from `fills` itself (an index range of under a minute each). Distinct buyers, sellers and txids: those whose last confirmed fill is in the window
 * (per-hour and per-minute counts the same way, the seconds left by time), plus the few whose last fill is after as_of and
 * that also sold in the window.
 */
import { sql } from 'kysely';
import type { Db } from '../../store/db.js';

const HOUR = 3600;
const DAY = 86_400;
const n = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export const ROLES = ['buyer', 'seller', 'txid'] as const;

export interface SalesTotals {
  /** Per UTC day number, per kind: volume and sales. */
  days: Map<number, Map<string, { volume: number; sales: number }>>;
  distinct: Record<(typeof ROLES)[number], number>;
}

interface Split {
  /** Whole buckets [first, last] (first > last: none). */
  whole: [number, number];
  /** The seconds left at either side, [from, to] each. */
  edges: Array<[number, number]>;
}

/** [a, b] in seconds as whole buckets of `width` seconds and the seconds left at either side. */
function split(a: number, b: number, width: number): Split {
  const lo = Math.ceil(a / width);
  const hi = Math.floor((b + 1) / width) - 1;
  if (lo > hi) return { whole: [lo, hi], edges: [[a, b]] };
  const edges: Array<[number, number]> = [
    [a, lo * width - 1],
    [(hi + 1) * width, b],
  ];
  return { whole: [lo, hi], edges: edges.filter(([x, y]) => x <= y) };
}

export class AnalyticsSales {
  constructor(private readonly db: Db) {}

  async read(since: number, asOf: number): Promise<SalesTotals> {
    const [sold, distinct] = await Promise.all([this.sold(since, asOf), this.distinct(since, asOf, split(since, asOf, HOUR))]);
    return { days: sold, distinct };
  }

  /**
   * Per day and kind, summed by the database: the window's whole hours and its edge hours' whole
   * minutes from the kept rows, the edge minutes' remaining seconds from the fills (on the
   * index fills_state_time alone: migration 095).
   */
  private async sold(since: number, asOf: number): Promise<SalesTotals['days']> {
    const hours = split(since, asOf, HOUR);
    const parts = [sql`SELECT h.hour / 24 AS day, h.kind, sum(h.volume) AS volume, sum(h.sales) AS sales FROM analytics_sales_hours h
      WHERE h.hour >= ${hours.whole[0]} AND h.hour <= ${hours.whole[1]} GROUP BY h.hour / 24, h.kind`];
    for (const [a, b] of hours.edges) {
      const minutes = split(a, b, 60);
      parts.push(sql`SELECT m.minute / 1440 AS day, m.kind, sum(m.volume) AS volume, sum(m.sales) AS sales FROM analytics_sales_minutes m
        WHERE m.minute >= ${minutes.whole[0]} AND m.minute <= ${minutes.whole[1]} GROUP BY m.minute / 1440, m.kind`);
      for (const [c, d] of minutes.edges) {
        parts.push(sql`SELECT f.broadcast_at / ${sql.lit(DAY)} AS day, f.kind, sum(f.price_sats) AS volume, count(*) AS sales FROM fills f
          WHERE f.state = 'confirmed' AND f.broadcast_at >= ${c} AND f.broadcast_at <= ${d} GROUP BY f.broadcast_at / ${sql.lit(DAY)}, f.kind`);
      }
    }
    const r = await sql<{ day: unknown; kind: string; volume: unknown; sales: unknown }>`${sql.join(parts, sql` UNION ALL `)}`.execute(this.db);
    const days: SalesTotals['days'] = new Map();
    for (const x of r.rows) {
      const day = n(x.day);
      const d = days.get(day) ?? new Map<string, { volume: number; sales: number }>();
      const k = d.get(x.kind) ?? { volume: 0, sales: 0 };
      d.set(x.kind, { volume: k.volume + n(x.volume), sales: k.sales + n(x.sales) });
      days.set(day, d);
    }
    return days;
  }

  /**
   * Per role: last fill in the window's whole hours (kept counts), its edge hours' whole minutes
   * (kept counts), the seconds left (a range of analytics_sale_last_at), or after as_of with a
   * confirmed fill in the window.
   */
  private async distinct(since: number, asOf: number, hours: Split): Promise<SalesTotals['distinct']> {
    const minutes = hours.edges.map(([a, b]) => split(a, b, 60));
    const roles = [...ROLES];
    const parts = [
      sql`SELECT h.role, sum(h.n) AS n FROM analytics_sale_last_hours h WHERE h.role IN (${sql.join(roles)}) AND h.hour >= ${hours.whole[0]} AND h.hour <= ${hours.whole[1]} GROUP BY h.role`,
    ];
    for (const m of minutes) {
      parts.push(
        sql`SELECT m.role, sum(m.n) AS n FROM analytics_sale_last_minutes m WHERE m.role IN (${sql.join(roles)}) AND m.minute >= ${m.whole[0]} AND m.minute <= ${m.whole[1]} GROUP BY m.role`,
      );
      for (const [c, d] of m.edges) {
        parts.push(sql`SELECT s.role, count(*) AS n FROM analytics_sale_last s WHERE s.role IN (${sql.join(roles)}) AND s.last_at >= ${c} AND s.last_at <= ${d} GROUP BY s.role`);
      }
    }
    for (const role of ROLES) {
      parts.push(sql`SELECT s.role, count(*) AS n FROM analytics_sale_last s WHERE s.role = ${role} AND s.last_at > ${asOf} AND EXISTS (
         SELECT 1 FROM fills f WHERE f.${sql.ref(role)} = s.key AND f.state = 'confirmed' AND f.broadcast_at >= ${since} AND f.broadcast_at <= ${asOf}) GROUP BY s.role`);
    }
    const r = await sql<{ role: (typeof ROLES)[number]; n: unknown }>`${sql.join(parts, sql` UNION ALL `)}`.execute(this.db);
    const out = { buyer: 0, seller: 0, txid: 0 };
    for (const x of r.rows) out[x.role] += n(x.n);
    return out;
  }
}
