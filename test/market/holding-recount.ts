/**
 * The holders' kept totals (migration 070) and holder assets (migration 085) beside a recount of the balance view and the
 * catalogue (the SQL the holders read ran on every call before them).
 */
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Db } from '../../src/store/db.js';

/** What the kept tables should hold, recounted from the balance view and the catalogue (the holders read's former SQL). */
export async function recount(db: Db) {
  const lines = await sql<{ collection_slug: string; address: string; units: number; assets: number }>`
    SELECT ca.collection_slug, h.address, sum(h.units) AS units, count(*) AS assets
    FROM catalog_assets ca JOIN cp_holdings h ON h.asset = ca.asset WHERE h.units > 0
    GROUP BY ca.collection_slug, h.address ORDER BY ca.collection_slug, h.address`.execute(db);
  const collections = await sql<{ collection_slug: string; holders: number; units: number; assets: number; indexed: number }>`
    SELECT m.collection_slug, coalesce(t.holders, 0) AS holders, coalesce(t.units, 0) AS units, m.assets, m.indexed
    FROM (SELECT ca.collection_slug, count(*) AS assets, count(a.asset) AS indexed
          FROM catalog_assets ca LEFT JOIN cp_assets a ON a.asset = ca.asset AND a.stale = 0 GROUP BY ca.collection_slug) m
    LEFT JOIN (SELECT ca.collection_slug, count(DISTINCT h.address) AS holders, sum(h.units) AS units
               FROM catalog_assets ca JOIN cp_holdings h ON h.asset = ca.asset WHERE h.units > 0 GROUP BY ca.collection_slug) t
      ON t.collection_slug = m.collection_slug
    ORDER BY m.collection_slug`.execute(db);
  const held = await sql<{ collection_slug: string; address: string; units: number; asset: string }>`
    SELECT ca.collection_slug, h.address, h.units, h.asset FROM catalog_assets ca JOIN cp_holdings h ON h.asset = ca.asset WHERE h.units > 0
    ORDER BY ca.collection_slug, h.address, h.asset`.execute(db);
  return { lines: lines.rows.map(numbers), collections: collections.rows.map(numbers), held: held.rows.map(numbers) };
}

async function kept(db: Db) {
  const lines = await db.selectFrom('holding_totals').selectAll().orderBy('collection_slug').orderBy('address').execute();
  // A collection's line with nothing left in it may stay or go; compared where it counts something.
  const collections = await db.selectFrom('collection_holding_totals').selectAll().orderBy('collection_slug').execute();
  const held = await db.selectFrom('holder_assets').select(['collection_slug', 'address', 'units', 'asset']).orderBy('collection_slug').orderBy('address').orderBy('asset').execute();
  return { lines: lines.map(numbers), collections: collections.map(numbers), held: held.map(numbers) };
}

// PostgreSQL hands bigint sums and counts over as text.
const numbers = (r: object): any =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^-?\d+$/.test(v) && k !== 'address' && k !== 'collection_slug' && k !== 'asset' ? Number(v) : typeof v === 'bigint' ? Number(v) : v]));

export async function same(db: Db, step: string) {
  const [want, got] = [await recount(db), await kept(db)];
  assert.deepEqual(got.lines, want.lines, `holding_totals after ${step}`);
  assert.deepEqual(got.held, want.held, `holder_assets after ${step}`);
  assert.deepEqual(
    got.collections.filter((c) => c.holders !== 0 || c.assets !== 0),
    want.collections,
    `collection_holding_totals after ${step}`,
  );
}

