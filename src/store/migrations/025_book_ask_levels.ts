import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * What the book shows of its asks, kept ready beside `book_asks` (016) so the uncached read is
 * two index range scans instead of a count and a per-level walk over every listing:
 *
 * - `book_ask_levels`: one row per (collection, price) with its number of `book_asks` entries;
 * - `book_ask_top`: the first `TOP` entries of each level in book order (oldest, then id), with
 *   every public column of the row: the listing's own, the catalogue's (media kind, subtype) and
 *   the balance view's (longname), the last two followed by triggers on their tables.
 *
 * Both follow `book_asks` (inserts and deletes only) through triggers. A level's top is
 * recomputed from `book_asks` whenever a change can reach it (an entry inside it leaves, one
 * enters ahead of its last, or it is not full), so it is always exactly the level's first `TOP`
 * entries; the depth is a running sum of +1/-1. Expiry stays read-time: the read subtracts a
 * level's expired entries and falls back to `book_asks` for a level whose kept rows expired.
 *
 * PostgreSQL: the upkeep runs at commit (deferred constraint triggers) under one advisory lock
 * per schema, so concurrent writers never interleave inside a level's recompute. At that point a
 * transaction already holds every row lock it will take, and the upkeep writes only these two
 * tables, which nothing else writes (the display columns' upkeep runs the same way): the lock
 * cannot close a cycle with other locks (no new deadlock between carts that reserve listings of
 * the same levels in different orders).
 */
export const TOP = 20;

const TOP_COLUMNS = 'collection_slug, price_sats, created_at, listing_id, expires_at, asset, seller, utxo_txid, utxo_vout, quantity_raw, asset_longname, media_kind, protocol_subtype';
const rowOf = (b: string) =>
  `${b}.collection_slug, ${b}.price_sats, ${b}.created_at, ${b}.listing_id, ${b}.expires_at, l.asset, l.seller, l.utxo_txid, l.utxo_vout, l.quantity_raw, a.asset_longname, ca.media_kind, l.protocol_subtype`;
const joinsOf = (b: string) => `JOIN listings l ON l.id = ${b}.listing_id
  LEFT JOIN catalog_assets ca ON ca.asset = l.asset AND ca.collection_slug = ${b}.collection_slug
  LEFT JOIN cp_assets a ON a.asset = l.asset`;
const JOINS = joinsOf('b');

/** The catalogue's and the balance view's columns of an asset's kept rows, re-read from their tables. */
const displayOf = (asset: string) => `UPDATE book_ask_top SET
    asset_longname = (SELECT a.asset_longname FROM cp_assets a WHERE a.asset = book_ask_top.asset),
    media_kind = (SELECT ca.media_kind FROM catalog_assets ca WHERE ca.asset = book_ask_top.asset AND ca.collection_slug = book_ask_top.collection_slug)
  WHERE asset = ${asset}`;

const level = (r: string, alias = '') => `${alias}collection_slug = ${r}.collection_slug AND ${alias}price_sats = ${r}.price_sats`;

const refresh = (r: string) => `DELETE FROM book_ask_top WHERE ${level(r)};
  INSERT INTO book_ask_top (${TOP_COLUMNS})
    SELECT ${rowOf('b')} FROM book_asks b ${JOINS}
    WHERE ${level(r, 'b.')} ORDER BY b.created_at, b.listing_id LIMIT ${TOP}`;

/** An entry can enter the top: the level is not full, or it sorts ahead of the level's last kept entry. */
const reachesTop = (n: string) => `(SELECT count(*) FROM book_ask_top t WHERE ${level(n, 't.')}) < ${TOP}
  OR (${n}.created_at, ${n}.listing_id) < (SELECT t.created_at, t.listing_id FROM book_ask_top t WHERE ${level(n, 't.')} ORDER BY t.created_at DESC, t.listing_id DESC LIMIT 1)`;
const wasInTop = (o: string) =>
  `EXISTS (SELECT 1 FROM book_ask_top t WHERE ${level(o, 't.')} AND t.created_at = ${o}.created_at AND t.listing_id = ${o}.listing_id)`;

const countIn = (n: string) => `INSERT INTO book_ask_levels (collection_slug, price_sats, depth) VALUES (${n}.collection_slug, ${n}.price_sats, 1)
  ON CONFLICT (collection_slug, price_sats) DO UPDATE SET depth = book_ask_levels.depth + 1`;
const countOut = (o: string) => `UPDATE book_ask_levels SET depth = depth - 1 WHERE ${level(o)};
  DELETE FROM book_ask_levels WHERE ${level(o)} AND depth <= 0`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('book_ask_levels')
    .addColumn('collection_slug', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('depth', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('book_ask_levels_pk', ['collection_slug', 'price_sats'])
    .execute();
  await db.schema
    .createTable('book_ask_top')
    .addColumn('collection_slug', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('listing_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('seller', 'text', (c) => c.notNull())
    .addColumn('utxo_txid', 'text', (c) => c.notNull())
    .addColumn('utxo_vout', 'integer', (c) => c.notNull())
    .addColumn('quantity_raw', 'text', (c) => c.notNull())
    .addColumn('asset_longname', 'text')
    .addColumn('media_kind', 'text')
    .addColumn('protocol_subtype', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('book_ask_top_pk', ['collection_slug', 'price_sats', 'created_at', 'listing_id'])
    .execute();
  await db.schema.createIndex('book_ask_top_asset').on('book_ask_top').column('asset').execute();

  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    // One writer at a time: the triggers run as each entry changes.
    for (const stmt of [
      `CREATE TRIGGER book_ask_levels_in AFTER INSERT ON book_asks BEGIN ${countIn('NEW')}; END`,
      `CREATE TRIGGER book_ask_top_in AFTER INSERT ON book_asks WHEN ${reachesTop('NEW')} BEGIN ${refresh('NEW')}; END`,
      `CREATE TRIGGER book_ask_levels_out AFTER DELETE ON book_asks BEGIN ${countOut('OLD')}; END`,
      `CREATE TRIGGER book_ask_top_out AFTER DELETE ON book_asks WHEN ${wasInTop('OLD')} BEGIN ${refresh('OLD')}; END`,
      `CREATE TRIGGER book_ask_top_longname_in AFTER INSERT ON cp_assets BEGIN ${displayOf('NEW.asset')}; END`,
      `CREATE TRIGGER book_ask_top_longname AFTER UPDATE OF asset_longname ON cp_assets BEGIN ${displayOf('NEW.asset')}; END`,
      `CREATE TRIGGER book_ask_top_longname_out AFTER DELETE ON cp_assets BEGIN ${displayOf('OLD.asset')}; END`,
      `CREATE TRIGGER book_ask_top_catalog AFTER UPDATE OF media_kind ON catalog_assets BEGIN ${displayOf('NEW.asset')}; END`,
    ]) {
      await sql.raw(stmt).execute(db);
    }
  } else {
    await sql.raw(`CREATE FUNCTION book_ask_upkeep() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(25, hashtext(current_schema()));
        IF TG_OP = 'INSERT' THEN
          ${countIn('NEW')};
          IF ${reachesTop('NEW')} THEN ${refresh('NEW')}; END IF;
        ELSE
          ${countOut('OLD')};
          IF ${wasInTop('OLD')} THEN ${refresh('OLD')}; END IF;
        END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`CREATE CONSTRAINT TRIGGER book_ask_upkeep AFTER INSERT OR DELETE ON book_asks
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION book_ask_upkeep()`).execute(db);
    await sql.raw(`CREATE FUNCTION book_ask_display() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(25, hashtext(current_schema()));
        IF TG_OP = 'DELETE' THEN ${displayOf('OLD.asset')}; ELSE ${displayOf('NEW.asset')}; END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`CREATE CONSTRAINT TRIGGER book_ask_longname AFTER INSERT OR DELETE OR UPDATE OF asset_longname ON cp_assets
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION book_ask_display()`).execute(db);
    await sql.raw(`CREATE CONSTRAINT TRIGGER book_ask_catalog AFTER UPDATE OF media_kind ON catalog_assets
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION book_ask_display()`).execute(db);
  }
  await fillBookAskLevels(db);
}

/** The levels and kept rows of what `book_asks` already holds, set-wise (also the bench's bulk load: bench/scale-market.ts). */
export async function fillBookAskLevels(db: Kysely<any>): Promise<void> {
  await sql.raw(`INSERT INTO book_ask_levels (collection_slug, price_sats, depth)
    SELECT collection_slug, price_sats, count(*) FROM book_asks GROUP BY collection_slug, price_sats`).execute(db);
  await sql.raw(`INSERT INTO book_ask_top (${TOP_COLUMNS})
    SELECT ${rowOf('x')}
    FROM (SELECT b.*, row_number() OVER (PARTITION BY b.collection_slug, b.price_sats ORDER BY b.created_at, b.listing_id) AS n FROM book_asks b) x
    ${joinsOf('x')} WHERE x.n <= ${TOP}`).execute(db);
}
