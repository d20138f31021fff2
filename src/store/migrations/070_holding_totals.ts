import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * What the holders read (modules/market/holders-service.ts) used to count on every call, kept
 * ready by the database in the same transaction as the change, whoever makes it:
 *
 * - `holding_totals`: one row per (collection, address) holding at least one whole unit of a
 *   member asset: its units summed and its number of such assets (a `cp_holdings` row with
 *   `units > 0` of an asset in `catalog_assets` of that collection);
 * - `collection_holding_totals`: one row per collection: its holders (rows of
 *   `holding_totals`), their units, its catalogue assets, and how many of them the balance view
 *   holds fresh (`cp_assets` with `stale = 0`).
 *
 * Kept by triggers on `cp_holdings` (the balance view replaces an asset's rows whole: deletes
 * then inserts), `catalog_assets` (members come and go, also by a collection's cascade) and
 * `cp_assets` (an asset fetched, marked stale by a reorg, fetched again), and on `holding_totals`
 * itself for the per-collection line. Running sums of +/-: every counted row adds on insert and
 * subtracts on delete, so the totals equal a recount (test/market/holding-totals.test.ts) and a
 * row whose counts reach zero goes. PostgreSQL: plain row triggers; an upsert takes the row lock
 * of the line it adds to, so concurrent writers serialize per line and never lose a step.
 */

/** Every holding of one asset added to one collection's lines (`sign` 1 or -1); `WHERE true` lets SQLite parse the upsert after a SELECT. */
const addAssetHoldings = (collection: string, asset: string, sign: 1 | -1) =>
  `INSERT INTO holding_totals (collection_slug, address, units, assets)
     SELECT ${collection}, h.address, ${sign} * h.units, ${sign} FROM cp_holdings h WHERE h.asset = ${asset} AND h.units > 0 AND true
     ON CONFLICT (collection_slug, address) DO UPDATE SET units = holding_totals.units + excluded.units, assets = holding_totals.assets + excluded.assets`;
const dropEmptyHoldings = (collection: string) => `DELETE FROM holding_totals WHERE collection_slug = ${collection} AND assets <= 0`;

/** A change to a collection's line. */
const addCollection = (collection: string, holders: string, units: string, assets: string, indexed: string) =>
  `INSERT INTO collection_holding_totals (collection_slug, holders, units, assets, indexed) VALUES (${collection}, ${holders}, ${units}, ${assets}, ${indexed})
     ON CONFLICT (collection_slug) DO UPDATE SET holders = collection_holding_totals.holders + excluded.holders,
       units = collection_holding_totals.units + excluded.units, assets = collection_holding_totals.assets + excluded.assets,
       indexed = collection_holding_totals.indexed + excluded.indexed`;
const dropEmptyCollection = (collection: string) =>
  `DELETE FROM collection_holding_totals WHERE collection_slug = ${collection} AND holders = 0 AND units = 0 AND assets = 0 AND indexed = 0`;
/** 1 when the balance view holds `asset` fresh, else 0. */
const freshOf = (asset: string) => `(SELECT count(*) FROM cp_assets a WHERE a.asset = ${asset} AND a.stale = 0)`;
/** A change of the fresh count to every collection of `asset`. */
const addIndexed = (asset: string, delta: string) =>
  `UPDATE collection_holding_totals SET indexed = indexed + ${delta}
     WHERE collection_slug IN (SELECT ca.collection_slug FROM catalog_assets ca WHERE ca.asset = ${asset})`;

/** Each statement of a change, per table and event (`o`/`n`: the OLD/NEW row names). */
const holdingIn = (n: string) => [
  `INSERT INTO holding_totals (collection_slug, address, units, assets)
     SELECT ca.collection_slug, ${n}.address, ${n}.units, 1 FROM catalog_assets ca WHERE ca.asset = ${n}.asset AND ${n}.units > 0 AND true
     ON CONFLICT (collection_slug, address) DO UPDATE SET units = holding_totals.units + excluded.units, assets = holding_totals.assets + excluded.assets`,
];
const holdingOut = (o: string) => [
  `UPDATE holding_totals SET units = units - ${o}.units, assets = assets - 1
     WHERE address = ${o}.address AND ${o}.units > 0 AND collection_slug IN (SELECT ca.collection_slug FROM catalog_assets ca WHERE ca.asset = ${o}.asset)`,
  `DELETE FROM holding_totals WHERE address = ${o}.address AND assets <= 0`,
];
const memberIn = (n: string) => [addCollection(`${n}.collection_slug`, '0', '0', '1', freshOf(`${n}.asset`)), addAssetHoldings(`${n}.collection_slug`, `${n}.asset`, 1)];
const memberOut = (o: string) => [
  addAssetHoldings(`${o}.collection_slug`, `${o}.asset`, -1),
  dropEmptyHoldings(`${o}.collection_slug`),
  addCollection(`${o}.collection_slug`, '0', '0', '-1', `-${freshOf(`${o}.asset`)}`),
  dropEmptyCollection(`${o}.collection_slug`),
];
const lineIn = (n: string) => [addCollection(`${n}.collection_slug`, '1', `${n}.units`, '0', '0')];
const lineOut = (o: string) => [addCollection(`${o}.collection_slug`, '-1', `-${o}.units`, '0', '0'), dropEmptyCollection(`${o}.collection_slug`)];
const fresh = (r: string) => `(CASE WHEN ${r}.stale = 0 THEN 1 ELSE 0 END)`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('holding_totals')
    .addColumn('collection_slug', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addColumn('assets', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('holding_totals_pk', ['collection_slug', 'address'])
    .execute();
  // The read's order (units, then assets, most first, then address), a range that stops at its LIMIT.
  await sql.raw(`CREATE INDEX holding_totals_rank ON holding_totals (collection_slug, units DESC, assets DESC, address)`).execute(db);
  // A holding that leaves finds its lines by address.
  await db.schema.createIndex('holding_totals_address').on('holding_totals').column('address').execute();
  await db.schema
    .createTable('collection_holding_totals')
    .addColumn('collection_slug', 'text', (c) => c.primaryKey())
    .addColumn('holders', 'bigint', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addColumn('assets', 'bigint', (c) => c.notNull())
    .addColumn('indexed', 'bigint', (c) => c.notNull())
    .execute();

  const body = (stmts: string[]) => stmts.map((s) => `${s};`).join('\n');
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const stmt of [
      `CREATE TRIGGER holding_totals_in AFTER INSERT ON cp_holdings BEGIN ${body(holdingIn('NEW'))} END`,
      `CREATE TRIGGER holding_totals_out AFTER DELETE ON cp_holdings BEGIN ${body(holdingOut('OLD'))} END`,
      `CREATE TRIGGER holding_totals_change AFTER UPDATE OF asset, address, units ON cp_holdings BEGIN ${body([...holdingOut('OLD'), ...holdingIn('NEW')])} END`,
      `CREATE TRIGGER holding_totals_member_in AFTER INSERT ON catalog_assets BEGIN ${body(memberIn('NEW'))} END`,
      `CREATE TRIGGER holding_totals_member_out AFTER DELETE ON catalog_assets BEGIN ${body(memberOut('OLD'))} END`,
      `CREATE TRIGGER holding_totals_member_change AFTER UPDATE OF asset, collection_slug ON catalog_assets BEGIN ${body([...memberOut('OLD'), ...memberIn('NEW')])} END`,
      `CREATE TRIGGER holding_totals_fresh_in AFTER INSERT ON cp_assets BEGIN ${addIndexed('NEW.asset', fresh('NEW'))}; END`,
      `CREATE TRIGGER holding_totals_fresh_out AFTER DELETE ON cp_assets BEGIN ${addIndexed('OLD.asset', `-${fresh('OLD')}`)}; END`,
      `CREATE TRIGGER holding_totals_fresh_change AFTER UPDATE OF asset, stale ON cp_assets BEGIN
         ${addIndexed('OLD.asset', `-${fresh('OLD')}`)}; ${addIndexed('NEW.asset', fresh('NEW'))}; END`,
      `CREATE TRIGGER collection_holding_totals_in AFTER INSERT ON holding_totals BEGIN ${body(lineIn('NEW'))} END`,
      `CREATE TRIGGER collection_holding_totals_out AFTER DELETE ON holding_totals BEGIN ${body(lineOut('OLD'))} END`,
      `CREATE TRIGGER collection_holding_totals_change AFTER UPDATE OF units ON holding_totals BEGIN
         ${addCollection('NEW.collection_slug', '0', 'NEW.units - OLD.units', '0', '0')}; END`,
    ]) {
      await sql.raw(stmt).execute(db);
    }
  } else {
    const fn = async (name: string, onDelete: string[], onInsert: string[]) => {
      await sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP <> 'INSERT' THEN ${body(onDelete)} END IF;
          IF TG_OP <> 'DELETE' THEN ${body(onInsert)} END IF;
          RETURN NULL;
        END $$`).execute(db);
    };
    await fn('holding_totals_of_holding', holdingOut('OLD'), holdingIn('NEW'));
    await sql.raw(`CREATE TRIGGER holding_totals_holding AFTER INSERT OR DELETE OR UPDATE OF asset, address, units ON cp_holdings
      FOR EACH ROW EXECUTE FUNCTION holding_totals_of_holding()`).execute(db);
    await fn('holding_totals_of_member', memberOut('OLD'), memberIn('NEW'));
    await sql.raw(`CREATE TRIGGER holding_totals_member AFTER INSERT OR DELETE OR UPDATE OF asset, collection_slug ON catalog_assets
      FOR EACH ROW EXECUTE FUNCTION holding_totals_of_member()`).execute(db);
    await fn('holding_totals_of_fresh', [addIndexed('OLD.asset', `-${fresh('OLD')}`)], [addIndexed('NEW.asset', fresh('NEW'))]);
    await sql.raw(`CREATE TRIGGER holding_totals_fresh AFTER INSERT OR DELETE OR UPDATE OF asset, stale ON cp_assets
      FOR EACH ROW EXECUTE FUNCTION holding_totals_of_fresh()`).execute(db);
    await sql.raw(`CREATE FUNCTION collection_holding_totals_of_line() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN ${body(lineIn('NEW'))}
        ELSIF TG_OP = 'DELETE' THEN ${body(lineOut('OLD'))}
        ELSE ${addCollection('NEW.collection_slug', '0', 'NEW.units - OLD.units', '0', '0')};
        END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`CREATE TRIGGER collection_holding_totals_line AFTER INSERT OR DELETE OR UPDATE OF units ON holding_totals
      FOR EACH ROW EXECUTE FUNCTION collection_holding_totals_of_line()`).execute(db);
  }
  await fillHoldingTotals(db);
}

/** Both tables from what the catalogue and the balance view already hold, set-wise (also the bench's bulk load: bench/scale-market.ts). */
export async function fillHoldingTotals(db: Kysely<any>): Promise<void> {
  await sql.raw(`INSERT INTO holding_totals (collection_slug, address, units, assets)
    SELECT ca.collection_slug, h.address, sum(h.units), count(*) FROM catalog_assets ca JOIN cp_holdings h ON h.asset = ca.asset
    WHERE h.units > 0 GROUP BY ca.collection_slug, h.address`).execute(db);
  await sql.raw(`INSERT INTO collection_holding_totals (collection_slug, holders, units, assets, indexed)
    SELECT m.collection_slug, coalesce(t.holders, 0), coalesce(t.units, 0), m.assets, m.indexed
    FROM (SELECT ca.collection_slug, count(*) AS assets, count(a.asset) AS indexed
          FROM catalog_assets ca LEFT JOIN cp_assets a ON a.asset = ca.asset AND a.stale = 0 GROUP BY ca.collection_slug) m
    LEFT JOIN (SELECT collection_slug, count(*) AS holders, sum(units) AS units FROM holding_totals GROUP BY collection_slug) t ON t.collection_slug = m.collection_slug`).execute(db);
}
