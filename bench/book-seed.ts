/**
 * Seeds a collection order book for the benchmark: `listings` public fillable listings over
 * `assets` catalogue assets of one collection (plus the same again in another collection, so the
 * book's queries must pick their own), prices on `levels` distinct levels.
 */
import crypto from 'node:crypto';
import { sql, SqliteAdapter } from 'kysely';
import type { Db } from '../src/store/db.js';

const assetName = (prefix: string, i: number) => `${prefix}${String.fromCharCode(65 + (Math.floor(i / 26 / 26 / 26) % 26), 65 + (Math.floor(i / 26 / 26) % 26), 65 + (Math.floor(i / 26) % 26), 65 + (i % 26))}BK`;

export async function seedBook(db: Db, opts: { slug: string; listings: number; assets: number; levels: number; now: number; prefix?: string }): Promise<void> {
  const prefix = opts.prefix ?? 'B';
  const other = `${opts.slug}-other`;
  // Added beside whatever catalogue exists (an import would replace it whole).
  await db.insertInto('collections').values([{ slug: opts.slug, name: 'Bench book', description: null, sort_order: 1000 }, { slug: other, name: 'Bench other', description: null, sort_order: 1001 }]).execute();
  const assets = Array.from({ length: opts.assets * 2 }, (_, i) => ({
    asset: assetName(prefix, i),
    collection_slug: i < opts.assets ? opts.slug : other,
    is_primary: 1,
    artist: null,
    max_supply_units: 100 + (i % 900),
    issued_year: 2016 + (i % 5),
    series: i % 7,
    media_kind: 'image',
    protocol_subtype: null,
  }));
  for (let i = 0; i < assets.length; i += 500) await db.insertInto('catalog_assets').values(assets.slice(i, i + 500)).execute();
  // As the balance view records them: indivisible, so a one-unit listing holds 1 raw.
  const known = assets.map((a) => ({ asset: a.asset, asset_longname: null, divisible: 0, refreshed_height: 0, refreshed_at: 0, stale: 0 }));
  for (let i = 0; i < known.length; i += 500) await db.insertInto('cp_assets').values(known.slice(i, i + 500)).execute();
  const rows = [];
  for (let i = 0; i < opts.listings * 2; i++) {
    const txid = crypto.createHash('sha256').update(`${opts.slug}-${i}`).digest('hex');
    rows.push({
      id: `lst_${opts.slug}${String(i).padStart(8, '0')}`,
      operation_id: `op_${opts.slug}${i}`,
      draft_id: `pf_${opts.slug}${i}`,
      seller: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
      asset: assetName(prefix, i % (opts.assets * 2)),
      quantity_raw: '1',
      utxo_txid: txid,
      utxo_vout: 0,
      utxo_outpoint: `${txid}:0`,
      utxo_value_sats: 330,
      price_sats: 5_000 + (i % opts.levels) * 1_000,
      state: 'active' as const,
      end_reason: null,
      signed_psbt: null,
      version: 1,
      expires_at: opts.now + 86_400 * 30,
      created_at: opts.now - (i % 1000),
      updated_at: opts.now,
      activated_at: opts.now,
      ended_at: null,
      protocol_subtype: 'plain' as const,
    });
  }
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('listings').values(rows.slice(i, i + 500)).execute();
  // PostgreSQL: the state autovacuum reaches on a live table within minutes (statistics, and the
  // visibility map that lets index-only scans skip the heap), not that of a table filled a
  // second ago.
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
    for (const t of ['listings', 'book_asks', 'book_ask_levels', 'book_ask_top', 'catalog_assets', 'cp_assets']) await sql.raw(`VACUUM ANALYZE ${t}`).execute(db);
  }
}
