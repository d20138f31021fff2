import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * Migration 085, part one. `book_fills`: one row per (collection, shown fill of a member asset), keyed for
 * the book's recent fills (modules/market/book-store.ts). The book used to walk the whole
 * market's fills newest first (`fills_broadcast`) and check each one's membership, so a small
 * collection in a busy market walked thousands of other collections' fills for its twenty; now
 * the read is a range of this key that stops at its limit.
 *
 * A fill shows while its state is `pending` or `confirmed` (dropped never shows; a reorg's
 * return to pending still shows). Kept by triggers on `fills` (a fill written, dropped,
 * confirmed, unconfirmed) and on `catalog_assets` (members come and go, a catalogue imported
 * again, a collection deleted by cascade), in the same transaction as the change, whoever makes
 * it, as `book_asks` is (migration 016). Rows are only inserted and deleted, never counted.
 */
const SHOWN = `('pending', 'confirmed')`;
const KEY = 'collection_slug, broadcast_at, fill_id';

/** The statements both dialects share; `o`/`n` are the OLD/NEW row names. */
const addFill = (n: string) =>
  `INSERT INTO book_fills (${KEY}) SELECT ca.collection_slug, ${n}.broadcast_at, ${n}.id FROM catalog_assets ca WHERE ca.asset = ${n}.asset`;
const dropFill = (o: string) => `DELETE FROM book_fills WHERE fill_id = ${o}.id`;
const addMember = (n: string) =>
  `INSERT INTO book_fills (${KEY}) SELECT ${n}.collection_slug, f.broadcast_at, f.id FROM fills f WHERE f.asset = ${n}.asset AND f.state IN ${SHOWN}`;
const dropMember = (o: string) => `DELETE FROM book_fills WHERE collection_slug = ${o}.collection_slug AND fill_id IN (SELECT f.id FROM fills f WHERE f.asset = ${o}.asset)`;
/** Whether an update moves a fill's rows: shown or not, or its asset or time (a confirmation alone does not). */
const moved = `(OLD.state IN ${SHOWN}) <> (NEW.state IN ${SHOWN}) OR OLD.asset <> NEW.asset OR OLD.broadcast_at <> NEW.broadcast_at`;

/** The table, its triggers and its rows (migration 085_kept_reads). */
export async function upBookFills(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('book_fills')
    .addColumn('collection_slug', 'text', (c) => c.notNull())
    .addColumn('broadcast_at', 'bigint', (c) => c.notNull())
    .addColumn('fill_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('book_fills_pk', ['collection_slug', 'broadcast_at', 'fill_id'])
    .execute();
  // A fill that leaves finds its rows by id.
  await db.schema.createIndex('book_fills_fill').on('book_fills').column('fill_id').execute();

  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const stmt of [
      `CREATE TRIGGER book_fills_fill_insert AFTER INSERT ON fills WHEN NEW.state IN ${SHOWN} BEGIN ${addFill('NEW')}; END`,
      `CREATE TRIGGER book_fills_fill_delete AFTER DELETE ON fills WHEN OLD.state IN ${SHOWN} BEGIN ${dropFill('OLD')}; END`,
      `CREATE TRIGGER book_fills_fill_update AFTER UPDATE OF state, asset, broadcast_at ON fills WHEN ${moved}
         BEGIN ${dropFill('OLD')}; ${addFill('NEW')} AND NEW.state IN ${SHOWN}; END`,
      `CREATE TRIGGER book_fills_member_insert AFTER INSERT ON catalog_assets BEGIN ${addMember('NEW')}; END`,
      `CREATE TRIGGER book_fills_member_delete AFTER DELETE ON catalog_assets BEGIN ${dropMember('OLD')}; END`,
      `CREATE TRIGGER book_fills_member_update AFTER UPDATE OF asset, collection_slug ON catalog_assets
         BEGIN ${dropMember('OLD')}; ${addMember('NEW')}; END`,
    ]) {
      await sql.raw(stmt).execute(db);
    }
  } else {
    await sql.raw(`CREATE FUNCTION book_fills_of_fill() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND NOT (${moved}) THEN RETURN NULL; END IF;
        IF TG_OP <> 'INSERT' AND OLD.state IN ${SHOWN} THEN ${dropFill('OLD')}; END IF;
        IF TG_OP <> 'DELETE' AND NEW.state IN ${SHOWN} THEN ${addFill('NEW')}; END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`CREATE TRIGGER book_fills_fill AFTER INSERT OR DELETE OR UPDATE OF state, asset, broadcast_at ON fills
      FOR EACH ROW EXECUTE FUNCTION book_fills_of_fill()`).execute(db);
    await sql.raw(`CREATE FUNCTION book_fills_of_member() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN ${dropMember('OLD')}; END IF;
        IF TG_OP <> 'DELETE' THEN ${addMember('NEW')}; END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`CREATE TRIGGER book_fills_member AFTER INSERT OR DELETE OR UPDATE OF asset, collection_slug ON catalog_assets
      FOR EACH ROW EXECUTE FUNCTION book_fills_of_member()`).execute(db);
  }
  // What has already sold.
  await fillBookFills(db);
}

/** `book_fills` of every shown fill, set-wise (also the bench's bulk load: bench/scale-market.ts). */
export async function fillBookFills(db: Kysely<any>): Promise<void> {
  await sql.raw(`INSERT INTO book_fills (${KEY})
    SELECT ca.collection_slug, f.broadcast_at, f.id FROM fills f JOIN catalog_assets ca ON ca.asset = f.asset WHERE f.state IN ${SHOWN}`).execute(db);
}
