import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * `book_asks`: one row per (collection, active listing of a member asset), kept by triggers on
 * `listings` and `catalog_assets` (see modules/market/book-tables.ts). The book walks its price
 * levels on the primary key instead of grouping every listing of the collection; rows are only
 * inserted and deleted with their listing, so concurrent writes never contend on a shared
 * counter row.
 */
const KEY = 'collection_slug, price_sats, created_at, listing_id';

/** The statements both dialects share; `o`/`n` are the OLD/NEW row names. */
const addListing = (n: string) =>
  `INSERT INTO book_asks (collection_slug, price_sats, created_at, listing_id, expires_at)
     SELECT ca.collection_slug, ${n}.price_sats, ${n}.created_at, ${n}.id, ${n}.expires_at FROM catalog_assets ca WHERE ca.asset = ${n}.asset`;
const dropListing = (o: string) => `DELETE FROM book_asks WHERE listing_id = ${o}.id`;
const addMember = (n: string) =>
  `INSERT INTO book_asks (collection_slug, price_sats, created_at, listing_id, expires_at)
     SELECT ${n}.collection_slug, l.price_sats, l.created_at, l.id, l.expires_at FROM listings l WHERE l.asset = ${n}.asset AND l.state = 'active'`;
const dropMember = (o: string) =>
  `DELETE FROM book_asks WHERE collection_slug = ${o}.collection_slug AND listing_id IN (SELECT id FROM listings WHERE asset = ${o}.asset AND state = 'active')`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('book_asks')
    .addColumn('collection_slug', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('listing_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addPrimaryKeyConstraint('book_asks_pk', ['collection_slug', 'price_sats', 'created_at', 'listing_id'])
    .execute();
  // Deletes by listing (its state left `active`), and the expiry read beside the level walk.
  await db.schema.createIndex('book_asks_listing').on('book_asks').column('listing_id').execute();
  await db.schema.createIndex('book_asks_level').on('book_asks').columns(['collection_slug', 'price_sats', 'expires_at']).execute();

  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) {
    for (const stmt of [
      `CREATE TRIGGER book_asks_listing_insert AFTER INSERT ON listings WHEN NEW.state = 'active' BEGIN ${addListing('NEW')}; END`,
      `CREATE TRIGGER book_asks_listing_delete AFTER DELETE ON listings WHEN OLD.state = 'active' BEGIN ${dropListing('OLD')}; END`,
      `CREATE TRIGGER book_asks_listing_update AFTER UPDATE OF state, price_sats, asset, created_at, expires_at ON listings
         WHEN OLD.state = 'active' OR NEW.state = 'active'
         BEGIN ${dropListing('OLD')}; ${addListing('NEW')} AND NEW.state = 'active'; END`,
      `CREATE TRIGGER book_asks_member_insert AFTER INSERT ON catalog_assets BEGIN ${addMember('NEW')}; END`,
      `CREATE TRIGGER book_asks_member_delete AFTER DELETE ON catalog_assets BEGIN ${dropMember('OLD')}; END`,
      `CREATE TRIGGER book_asks_member_update AFTER UPDATE OF asset, collection_slug ON catalog_assets
         BEGIN ${dropMember('OLD')}; ${addMember('NEW')}; END`,
    ]) {
      await sql.raw(stmt).execute(db);
    }
  } else {
    await sql.raw(`CREATE FUNCTION book_asks_of_listing() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.state = 'active' THEN ${dropListing('OLD')}; END IF;
        IF TG_OP <> 'DELETE' AND NEW.state = 'active' THEN ${addListing('NEW')}; END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`CREATE TRIGGER book_asks_listing AFTER INSERT OR DELETE OR UPDATE OF state, price_sats, asset, created_at, expires_at ON listings
      FOR EACH ROW EXECUTE FUNCTION book_asks_of_listing()`).execute(db);
    await sql.raw(`CREATE FUNCTION book_asks_of_member() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN ${dropMember('OLD')}; END IF;
        IF TG_OP <> 'DELETE' THEN ${addMember('NEW')}; END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`CREATE TRIGGER book_asks_member AFTER INSERT OR DELETE OR UPDATE OF asset, collection_slug ON catalog_assets
      FOR EACH ROW EXECUTE FUNCTION book_asks_of_member()`).execute(db);
  }
  // What is already listed.
  await fillBookAsks(db);
}

/** `book_asks` of what is already listed, set-wise (also the bench's bulk load: bench/scale-market.ts). */
export async function fillBookAsks(db: Kysely<any>): Promise<void> {
  await sql.raw(`INSERT INTO book_asks (${KEY}, expires_at)
    SELECT ca.collection_slug, l.price_sats, l.created_at, l.id, l.expires_at FROM listings l JOIN catalog_assets ca ON ca.asset = l.asset WHERE l.state = 'active'`).execute(db);
}
