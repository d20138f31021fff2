/**
 * The market analytics snapshot. Listing figures cover current public fillable listings (the
 * one rule in listing-stats.ts: `active`, not past its expiry); sales figures cover confirmed
 * fills (never pending, never dropped) broadcast in the trailing 30 days, [since, as_of].
 * Read from aggregates the database keeps in the same transaction as each change (migration
 * 080, analytics-totals-tables.ts), less what is still `active` past its expiry
 * (analytics-market.ts), and with only the seconds at the window's two edges read from the
 * fills (analytics-sales.ts): no call counts the whole market (test/market/analytics-totals.test.ts
 * compares it with that count).
 */
import { sql } from 'kysely';
import type { Db } from '../../store/db.js';
import { AnalyticsMarket } from './analytics-market.js';
import { AnalyticsSales } from './analytics-sales.js';

export const WINDOW_DAYS = 30;
export const DEPTH_LEVELS = 100;
export const TOP_SALES = 10;
const DAY = 86_400;
/** Rows of the dearest confirmed fills walked before reading the window day by day (AnalyticsService.top). */
export const TOP_WALK = 100;
const TOP_COLUMNS = ['f.id', 'f.txid', 'f.ref_id', 'f.asset', 'f.asset_longname', 'f.price_sats', 'f.buyer', 'f.seller', 'f.broadcast_at'] as const;
export const SALE_KINDS = ['listing', 'offer'] as const;

export interface AnalyticsSnapshot {
  as_of: number;
  since: number;
  market: { listings: number; asking_value_sats: number; sellers: number; open_offers: number; bidders: number };
  sales: { volume_sats: number; sales: number; transactions: number; buyers: number; sellers: number };
  daily: Array<{ day: string; volume_sats: number; sales: number }>;
  depth: Array<{ price_sats: number; listings: number; offers: number }>;
  sale_types: Array<{ kind: (typeof SALE_KINDS)[number]; volume_sats: number; sales: number }>;
  top_sales: Array<{ txid: string; ref_id: string; asset: string; asset_longname: string | null; price_sats: number; buyer: string; seller: string; broadcast_at: number }>;
}

const n = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
/** 'YYYY-MM-DD' of a UTC day number (days since the epoch). */
const dayLabel = (day: number): string => new Date(day * DAY * 1000).toISOString().slice(0, 10);

export class AnalyticsService {
  private readonly market: AnalyticsMarket;
  private readonly sales: AnalyticsSales;

  constructor(
    private readonly db: Db,
    private readonly nowSeconds: () => number,
  ) {
    this.market = new AnalyticsMarket(db);
    this.sales = new AnalyticsSales(db);
  }

  async snapshot(): Promise<AnalyticsSnapshot> {
    const asOf = this.nowSeconds();
    const since = asOf - WINDOW_DAYS * DAY;
    // Independent reads: PostgreSQL runs them on connections side by side.
    const [{ market, asks, bids }, { days, distinct }, top] = await Promise.all([this.market.read(asOf, DEPTH_LEVELS), this.sales.read(since, asOf), this.top(since, asOf)]);

    const daily: AnalyticsSnapshot['daily'] = [];
    const byKind = new Map<string, { volume: number; sales: number }>();
    for (let d = Math.floor(since / DAY); d <= Math.floor(asOf / DAY); d++) {
      let volume = 0;
      let sales = 0;
      for (const [kind, k] of days.get(d) ?? []) {
        volume += k.volume;
        sales += k.sales;
        const t = byKind.get(kind) ?? { volume: 0, sales: 0 };
        byKind.set(kind, { volume: t.volume + k.volume, sales: t.sales + k.sales });
      }
      daily.push({ day: dayLabel(d), volume_sats: volume, sales });
    }
    const totalVolume = daily.reduce((s, d) => s + d.volume_sats, 0);
    const totalSales = daily.reduce((s, d) => s + d.sales, 0);

    const merged = new Map<number, { price_sats: number; listings: number; offers: number }>();
    for (const [p, c] of asks) merged.set(p, { price_sats: p, listings: c, offers: 0 });
    for (const [p, c] of bids) merged.set(p, { price_sats: p, listings: merged.get(p)?.listings ?? 0, offers: c });

    return {
      as_of: asOf,
      since,
      market,
      sales: { volume_sats: totalVolume, sales: totalSales, transactions: distinct.txid, buyers: distinct.buyer, sellers: distinct.seller },
      daily,
      depth: [...merged.values()].sort((a, b) => a.price_sats - b.price_sats),
      sale_types: SALE_KINDS.map((kind) => ({ kind, volume_sats: byKind.get(kind)?.volume ?? 0, sales: byKind.get(kind)?.sales ?? 0 })),
      top_sales: top,
    };
  }

  /**
   * The window's ten dearest confirmed sales. First the walk along `fills_top` (every confirmed
   * fill from the highest price down), at most TOP_WALK rows of it: the first ten in the window
   * are the answer. A market whose dearest sales are older than the window finds fewer there;
   * then each window day's first ten along `fills_top_day` (migration 090), 31 short ranges
   * whatever the history, and the best ten of those.
   */
  private async top(since: number, asOf: number): Promise<AnalyticsSnapshot['top_sales']> {
    const confirmed = () => this.db.selectFrom('fills as f').where('f.state', '=', 'confirmed').select(TOP_COLUMNS);
    const inWindow = <Q extends { where: (...a: any[]) => Q }>(q: Q) => q.where('broadcast_at', '>=', since).where('broadcast_at', '<=', asOf);
    const walk = confirmed().orderBy('f.price_sats', 'desc').orderBy('f.broadcast_at', 'desc').orderBy('f.id').limit(TOP_WALK);
    let rows = await inWindow(this.db.selectFrom(walk.as('w')).selectAll()).orderBy('price_sats', 'desc').orderBy('broadcast_at', 'desc').orderBy('id').limit(TOP_SALES).execute();
    if (rows.length < TOP_SALES) {
      const days: number[] = [];
      for (let d = Math.floor(since / DAY); d <= Math.floor(asOf / DAY); d++) days.push(d);
      const ofDay = (d: number) =>
        this.db
          .selectFrom(
            inWindow(confirmed().where(sql`f.broadcast_at / 86400`, '=', d))
              .orderBy('f.price_sats', 'desc')
              .orderBy('f.broadcast_at', 'desc')
              .orderBy('f.id')
              .limit(TOP_SALES)
              .as(`d${d}`),
          )
          .selectAll();
      let union = ofDay(days[0]!);
      for (const d of days.slice(1)) union = union.unionAll(ofDay(d));
      rows = await this.db.selectFrom(union.as('days')).selectAll().orderBy('price_sats', 'desc').orderBy('broadcast_at', 'desc').orderBy('id').limit(TOP_SALES).execute();
    }
    return rows.map(({ id: _id, ...t }) => ({ ...t, asset_longname: t.asset_longname ?? null, price_sats: n(t.price_sats), broadcast_at: n(t.broadcast_at) }));
  }
}
