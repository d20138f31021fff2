/**
 * The analytics snapshot as the read counted it over the whole market on every call before the
 * kept aggregates (migration 080): the reference the kept read is compared with.
 */
import { sql } from 'kysely';
import type { Db } from '../../src/store/db.js';
import { publicFillable } from '../../src/modules/market/listing-stats.js';
import { DEPTH_LEVELS, SALE_KINDS, TOP_SALES, WINDOW_DAYS, type AnalyticsSnapshot } from '../../src/modules/market/analytics-service.js';

const DAY = 86_400;

const n = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
/** 'YYYY-MM-DD' of a UTC day number (days since the epoch). */
const dayLabel = (day: number): string => new Date(day * DAY * 1000).toISOString().slice(0, 10);

export class RecountedAnalytics {
  constructor(
    private readonly db: Db,
    private readonly nowSeconds: () => number,
  ) {}

  /** Confirmed fills broadcast in the window. */
  private sold(since: number, asOf: number) {
    return this.db.selectFrom('fills as f').where('f.state', '=', 'confirmed').where('f.broadcast_at', '>=', since).where('f.broadcast_at', '<=', asOf);
  }

  async snapshot(): Promise<AnalyticsSnapshot> {
    const asOf = this.nowSeconds();
    const since = asOf - WINDOW_DAYS * DAY;

    const market = await this.db
      .selectFrom('listings as l')
      .select((eb) => [eb.fn.countAll().as('listings'), eb.fn.sum('l.price_sats').as('value'), eb.fn.count('l.seller').distinct().as('sellers')])
      .where(publicFillable(asOf))
      .executeTakeFirstOrThrow();

    const sales = await this.sold(since, asOf)
      .select((eb) => [
        eb.fn.sum('f.price_sats').as('volume'),
        eb.fn.countAll().as('sales'),
        eb.fn.count('f.txid').distinct().as('transactions'),
        eb.fn.count('f.buyer').distinct().as('buyers'),
        eb.fn.count('f.seller').distinct().as('sellers'),
      ])
      .executeTakeFirstOrThrow();

    const dayOf = sql<number>`f.broadcast_at / ${sql.lit(DAY)}`;
    const perDay = await this.sold(since, asOf)
      .select((eb) => [dayOf.as('day'), eb.fn.sum('f.price_sats').as('volume'), eb.fn.countAll().as('sales')])
      .groupBy(dayOf)
      .execute();
    const byDay = new Map(perDay.map((r) => [n(r.day), r]));
    const daily: AnalyticsSnapshot['daily'] = [];
    for (let d = Math.floor(since / DAY); d <= Math.floor(asOf / DAY); d++) {
      const r = byDay.get(d);
      daily.push({ day: dayLabel(d), volume_sats: n(r?.volume), sales: n(r?.sales) });
    }

    const depth = await this.db
      .selectFrom('listings as l')
      .select((eb) => ['l.price_sats', eb.fn.countAll().as('listings')])
      .where(publicFillable(asOf))
      .groupBy('l.price_sats')
      .orderBy('l.price_sats')
      .limit(DEPTH_LEVELS)
      .execute();

    // Open offers: live public bids, once per funding output (its alternatives are one capacity),
    // and live collection offers, once per funding set (one escrow backs its alternatives);
    // depth counts each output or set once, at the highest price it bids.
    const liveOffers = this.db.selectFrom('offers as o').where('o.state', '=', 'active').where('o.expires_at', '>', asOf).where('o.target_txid', 'is', null);
    const livePolicy = this.db.selectFrom('policy_offers as p').where('p.state', '=', 'active').where('p.expires_at', '>', asOf);
    const backing = liveOffers
      .select(['o.slot_id as backing', 'o.bidder', 'o.price_sats'])
      .unionAll(livePolicy.select(['p.funding_set_id as backing', 'p.bidder', 'p.price_sats']))
      .as('b');
    const bids = await this.db
      .selectFrom(backing)
      .select((eb) => [eb.fn.count('b.backing').distinct().as('slots'), eb.fn.count('b.bidder').distinct().as('bidders')])
      .executeTakeFirstOrThrow();
    const perSlot = this.db.selectFrom(backing).select((eb) => ['b.backing', eb.fn.max('b.price_sats').as('price_sats')]).groupBy('b.backing').as('s');
    const bidDepth = await this.db
      .selectFrom(perSlot)
      .select((eb) => ['s.price_sats', eb.fn.countAll().as('offers')])
      .groupBy('s.price_sats')
      .orderBy('s.price_sats', 'desc')
      .limit(DEPTH_LEVELS)
      .execute();
    const merged = new Map<number, { price_sats: number; listings: number; offers: number }>();
    for (const d of depth) merged.set(n(d.price_sats), { price_sats: n(d.price_sats), listings: n(d.listings), offers: 0 });
    for (const d of bidDepth) {
      const p = n(d.price_sats);
      merged.set(p, { price_sats: p, listings: merged.get(p)?.listings ?? 0, offers: n(d.offers) });
    }

    const kinds = await this.sold(since, asOf)
      .select((eb) => ['f.kind', eb.fn.sum('f.price_sats').as('volume'), eb.fn.countAll().as('sales')])
      .groupBy('f.kind')
      .execute();
    const byKind = new Map(kinds.map((k) => [k.kind, k]));

    const top = await this.sold(since, asOf)
      .select(['f.txid', 'f.ref_id', 'f.asset', 'f.asset_longname', 'f.price_sats', 'f.buyer', 'f.seller', 'f.broadcast_at'])
      .orderBy('f.price_sats', 'desc')
      .orderBy('f.broadcast_at', 'desc')
      .orderBy('f.id')
      .limit(TOP_SALES)
      .execute();

    return {
      as_of: asOf,
      since,
      market: { listings: n(market.listings), asking_value_sats: n(market.value), sellers: n(market.sellers), open_offers: n(bids.slots), bidders: n(bids.bidders) },
      sales: { volume_sats: n(sales.volume), sales: n(sales.sales), transactions: n(sales.transactions), buyers: n(sales.buyers), sellers: n(sales.sellers) },
      daily,
      depth: [...merged.values()].sort((a, b) => a.price_sats - b.price_sats),
      sale_types: SALE_KINDS.map((kind) => ({ kind, volume_sats: n(byKind.get(kind)?.volume), sales: n(byKind.get(kind)?.sales) })),
      top_sales: top.map((t) => ({ ...t, asset_longname: t.asset_longname ?? null, price_sats: n(t.price_sats), broadcast_at: n(t.broadcast_at) })),
    };
  }
}
