import { sql, type Kysely } from 'kysely';

/**
 * Migration 090: the analytics' top sales bounded whatever the market's history (issue #33 item
 * 1). The read walks `fills_top` (confirmed fills from the highest price down) and stops at ten
 * in the 30-day window, which is a few rows while the window holds the market's dearest sales,
 * but every older dearer sale when it does not (a market whose best month is behind it). This
 * index puts each UTC day's confirmed fills in price order, so the read can instead take each
 * window day's first ten (31 short ranges) when the walk did not find ten soon
 * (analytics-service.ts). An expression index: the day is `broadcast_at / 86400` (integer
 * division on both backends), written the same in the read so the planner matches it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`CREATE INDEX fills_top_day ON fills (state, (broadcast_at / 86400), price_sats DESC, broadcast_at DESC, id)`).execute(db);
}
