import { sql, type Kysely } from 'kysely';

/**
 * Migration 095: fewer index entries written by every sale, for the same reads (issue #33 item 4).
 * A ten-line checkout writes about 130 pages of its tables and indexes (BENCH_WAL_PAGES=1,
 * bench/wal-pages.ts); two indexes there served nothing another did not:
 *
 * - `listings_asset_state` (asset, state, price_sats; migration 007) is the first three columns of
 *   `listings_member` (asset, state, price_sats, expires_at, created_at, id; migration 009), which
 *   serves every range and order it served and covers more.
 * - `fills_recent` (state, broadcast_at, id; migration 008) and `fills_sold` (state, broadcast_at,
 *   kind, price_sats; migration 080) lead with the same two columns. One index of all five,
 *   `fills_state_time`, is the first's columns in its order (a status's fills by time, newest
 *   first, id breaking ties: fills/store.ts) and holds every column the second's read uses (a
 *   window's confirmed fills summed by day and kind, from the index alone: analytics-sales.ts).
 *
 * Both backends.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS listings_asset_state`.execute(db);
  await db.schema.createIndex('fills_state_time').on('fills').columns(['state', 'broadcast_at', 'id', 'kind', 'price_sats']).execute();
  await sql`DROP INDEX IF EXISTS fills_recent`.execute(db);
  await sql`DROP INDEX IF EXISTS fills_sold`.execute(db);
}
