import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * Migration 085, part two. `holder_assets`: one row per (collection, address, member asset) the address holds a whole unit
 * of, with its units, keyed for the holders read (modules/market/holders-service.ts): each listed
 * holder's first assets by units (most first, then asset) are a range of
 * `(collection_slug, address, units DESC, asset)` that stops at its limit. Before, the read
 * joined the listed holders' holdings of the whole market with the collection's whole catalogue
 * (on PostgreSQL at a million rows: a merge join over the largest collection's 10,000 members and
 * two sorts, 7 ms of the holders' 7.5).
 *
 * Kept by triggers on `cp_holdings` (the balance view replaces an asset's rows whole, or changes
 * one in place) and `catalog_assets` (members come and go, also by a collection's cascade), in
 * the same transaction as the change, as `holding_totals` (migration 070) counts the same rows:
 * a `cp_holdings` row with `units > 0` of an asset in `catalog_assets` of that collection. Rows
 * are only inserted and deleted.
 */
const COLUMNS = 'collection_slug, address, units, asset';

/** The statements both dialects share; `o`/`n` are the OLD/NEW row names. */
const holdingIn = (n: string) =>
  `INSERT INTO holder_assets (${COLUMNS}) SELECT ca.collection_slug, ${n}.address, ${n}.units, ${n}.asset FROM catalog_assets ca WHERE ca.asset = ${n}.asset AND ${n}.units > 0`;
const holdingOut = (o: string) => `DELETE FROM holder_assets WHERE asset = ${o}.asset AND address = ${o}.address`;
const memberIn = (n: string) =>
  `INSERT INTO holder_assets (${COLUMNS}) SELECT ${n}.collection_slug, h.address, h.units, h.asset FROM cp_holdings h WHERE h.asset = ${n}.asset AND h.units > 0`;
const memberOut = (o: string) => `DELETE FROM holder_assets WHERE asset = ${o}.asset AND collection_slug = ${o}.collection_slug`;

/** The table, its triggers and its rows (migration 085_kept_reads). */
export async function upHolderAssets(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('holder_assets')
    .addColumn('collection_slug', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    // A holding or a member that leaves finds its rows by asset.
    .addPrimaryKeyConstraint('holder_assets_pk', ['asset', 'address', 'collection_slug'])
    .execute();
  // The read's order within a holder: units most first, then asset.
  await sql.raw(`CREATE INDEX holder_assets_rank ON holder_assets (collection_slug, address, units DESC, asset)`).execute(db);

  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const stmt of [
      `CREATE TRIGGER holder_assets_in AFTER INSERT ON cp_holdings BEGIN ${holdingIn('NEW')}; END`,
      `CREATE TRIGGER holder_assets_out AFTER DELETE ON cp_holdings BEGIN ${holdingOut('OLD')}; END`,
      `CREATE TRIGGER holder_assets_change AFTER UPDATE OF asset, address, units ON cp_holdings BEGIN ${holdingOut('OLD')}; ${holdingIn('NEW')}; END`,
      `CREATE TRIGGER holder_assets_member_in AFTER INSERT ON catalog_assets BEGIN ${memberIn('NEW')}; END`,
      `CREATE TRIGGER holder_assets_member_out AFTER DELETE ON catalog_assets BEGIN ${memberOut('OLD')}; END`,
      `CREATE TRIGGER holder_assets_member_change AFTER UPDATE OF asset, collection_slug ON catalog_assets BEGIN ${memberOut('OLD')}; ${memberIn('NEW')}; END`,
    ]) {
      await sql.raw(stmt).execute(db);
    }
  } else {
    const fn = async (name: string, onDelete: string, onInsert: string) => {
      await sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP <> 'INSERT' THEN ${onDelete}; END IF;
          IF TG_OP <> 'DELETE' THEN ${onInsert}; END IF;
          RETURN NULL;
        END $$`).execute(db);
    };
    await fn('holder_assets_of_holding', holdingOut('OLD'), holdingIn('NEW'));
    await sql.raw(`CREATE TRIGGER holder_assets_holding AFTER INSERT OR DELETE OR UPDATE OF asset, address, units ON cp_holdings
      FOR EACH ROW EXECUTE FUNCTION holder_assets_of_holding()`).execute(db);
    await fn('holder_assets_of_member', memberOut('OLD'), memberIn('NEW'));
    await sql.raw(`CREATE TRIGGER holder_assets_member AFTER INSERT OR DELETE OR UPDATE OF asset, collection_slug ON catalog_assets
      FOR EACH ROW EXECUTE FUNCTION holder_assets_of_member()`).execute(db);
  }
  await fillHolderAssets(db);
}

/** `holder_assets` of what the catalogue and the balance view already hold, set-wise (also the bench's bulk load: bench/scale-market.ts). */
export async function fillHolderAssets(db: Kysely<any>): Promise<void> {
  await sql.raw(`INSERT INTO holder_assets (${COLUMNS})
    SELECT ca.collection_slug, h.address, h.units, h.asset FROM catalog_assets ca JOIN cp_holdings h ON h.asset = ca.asset WHERE h.units > 0`).execute(db);
}
