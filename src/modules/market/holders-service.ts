/**
 * Collection holders from the balance view (cp_holdings): whole units per owner address over
 * the collection's catalogue assets, detached and UTXO-attached balances together (an attached
 * balance counts for the address that owns the UTXO). The totals, the ranking (migration 070)
 * and each holder's member assets (migration 085) are kept by the database; the read is one
 * statement of bounded index ranges.
 */
import { sql, SqliteAdapter } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import type { Db } from '../../store/db.js';
import { PREPARED_MARK } from '../../store/prepared-mark.js';
import { notFound } from '../../http/errors.js';

/** The spec caps `holders` at 50 items whatever `limit` asks (1..100 is accepted, then clamped). */
export const MAX_HOLDERS = 50;
export const ASSETS_PER_HOLDER = 10;

export interface Holder {
  address: string;
  edition_units: number;
  percent_collected: number;
  distinct_assets: number;
  assets: string[];
}

export interface Holders {
  holders: Holder[];
  holder_count: number;
  total_edition_units: number;
  collection_assets: number;
  indexed_assets: number;
  as_of_event_index: number | null;
}

/** distinct / total × 100, two decimals, never above 100. */
export const percentCollected = (distinct: number, total: number): number => (total > 0 ? Math.min(100, Math.round((distinct / total) * 10_000) / 100) : 0);

export class HoldersService {
  constructor(private readonly db: Db) {}

  async holders(slug: string, limit: number): Promise<Holders> {
    const n = Math.min(limit, MAX_HOLDERS);
    const jsonArrayFrom = this.db.getExecutor().adapter instanceof SqliteAdapter ? sqliteJsonArrayFrom : pgJsonArrayFrom;
    const line = (column: 'holders' | 'units' | 'assets' | 'indexed') =>
      this.db.selectFrom('collection_holding_totals').select(column).where('collection_slug', '=', slug);

    // One statement (on PostgreSQL each is a round trip, and five of them were most of the read),
    // every part read from what the database keeps as holdings change (migrations 070 and 085,
    // holding-totals-tables.ts), each bounded by what is shown whatever the collection's size:
    // the collection's line; its first `n` holders, a LIMIT along `holding_totals_rank`; each
    // listed holder's first assets, most units first, a range of `holder_assets_rank` that stops
    // at ASSETS_PER_HOLDER. The counts are the ones this read made before (recount test:
    // test/market/holding-totals.test.ts).
    const top = this.db
      .selectFrom('holding_totals as t')
      .select((eb) => [
        't.address',
        't.units',
        't.assets as distinct',
        jsonArrayFrom(
          eb
            .selectFrom('holder_assets as ha')
            .select('ha.asset')
            .whereRef('ha.collection_slug', '=', 't.collection_slug')
            .whereRef('ha.address', '=', 't.address')
            .orderBy('ha.units', 'desc')
            .orderBy('ha.asset')
            .limit(ASSETS_PER_HOLDER),
        ).as('held'),
      ])
      .where('t.collection_slug', '=', slug)
      .orderBy('t.units', 'desc')
      .orderBy('t.assets', 'desc')
      .orderBy('t.address')
      .limit(n);
    const row = await this.db
      .selectNoFrom((eb) => [
        eb.selectFrom('collections').select('slug').where('slug', '=', slug).as('found'),
        line('holders').as('holders'),
        line('units').as('units'),
        line('assets').as('assets'),
        line('indexed').as('indexed'),
        eb.selectFrom('cp_view_blocks').select('as_of_event_index').orderBy('height', 'desc').limit(1).as('as_of'),
        jsonArrayFrom(top).as('top'),
      ])
      // The same text for every collection: planned once per connection (store/prepared-mark.ts).
      .modifyFront(sql.raw(PREPARED_MARK))
      .executeTakeFirstOrThrow();
    if (row.found === null) throw notFound('collection');

    const collectionAssets = Number(row.assets ?? 0);
    return {
      holders: arrayOf<{ address: string; units: unknown; distinct: unknown; held: unknown }>(row.top).map((t) => ({
        address: t.address,
        edition_units: Number(t.units),
        percent_collected: percentCollected(Number(t.distinct), collectionAssets),
        distinct_assets: Number(t.distinct),
        assets: arrayOf<{ asset: string }>(t.held).map((a) => a.asset),
      })),
      holder_count: Number(row.holders ?? 0),
      total_edition_units: Number(row.units ?? 0),
      collection_assets: collectionAssets,
      indexed_assets: Number(row.indexed ?? 0),
      as_of_event_index: row.as_of == null ? null : Number(row.as_of),
    };
  }
}

/** A JSON array column: PostgreSQL's driver parses json itself, SQLite hands over the text (also a nested array's, which reaches the outer one as text). */
const arrayOf = <T>(v: unknown): T[] => (typeof v === 'string' ? JSON.parse(v) : (v ?? [])) as T[];
