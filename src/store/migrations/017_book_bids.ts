import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * `book_bids`: one row per (collection, live public offer that reaches it), kept by triggers on
 * `offers` and `catalog_assets` (src/modules/market/book-bids-tables.ts). A collection or trait
 * offer reaches its own collection; an asset offer reaches every collection its asset is a member
 * of. Exact-unit offers (target_txid) are private and never here. The book walks bid levels on
 * (collection, price, level_key) in index order and stops at the levels it shows, instead of
 * grouping every offer of the collection. Within one level each funding slot has at most one
 * offer (a placement's targets are distinct and a slot backs one placement), so a level's
 * `funded_slots` is its row count.
 */
const COLS = 'collection_slug, price_sats, level_key, created_at, offer_id, slot_id, kind, expires_at';

const live = (n: string) => `${n}.state = 'active' AND ${n}.target_txid IS NULL`;
/** The offer's rows when it is live: its own collection (collection scope) or its asset's collections. */
const addOffer = (n: string) => `INSERT INTO book_bids (${COLS})
  SELECT ${n}.collection, ${n}.price_sats, ${n}.level_key, ${n}.created_at, ${n}.id, ${n}.slot_id, ${n}.kind, ${n}.expires_at
    WHERE ${n}.scope = 'collection' AND ${live(n)}
  UNION ALL
  SELECT ca.collection_slug, ${n}.price_sats, ${n}.level_key, ${n}.created_at, ${n}.id, ${n}.slot_id, ${n}.kind, ${n}.expires_at
    FROM catalog_assets ca WHERE ${n}.scope = 'asset' AND ca.asset = ${n}.asset AND (${n}.collection IS NULL OR ${n}.collection = ca.collection_slug) AND ${live(n)}`;
const dropOffer = (o: string) => `DELETE FROM book_bids WHERE offer_id = ${o}.id`;
const addMember = (n: string) => `INSERT INTO book_bids (${COLS})
  SELECT ${n}.collection_slug, o.price_sats, o.level_key, o.created_at, o.id, o.slot_id, o.kind, o.expires_at
    FROM offers o WHERE o.scope = 'asset' AND o.asset = ${n}.asset AND (o.collection IS NULL OR o.collection = ${n}.collection_slug) AND o.state = 'active' AND o.target_txid IS NULL`;
const dropMember = (o: string) =>
  `DELETE FROM book_bids WHERE collection_slug = ${o}.collection_slug AND offer_id IN (SELECT id FROM offers WHERE scope = 'asset' AND asset = ${o}.asset)`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('book_bids')
    .addColumn('collection_slug', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('level_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('offer_id', 'text', (c) => c.notNull())
    .addColumn('slot_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('book_bids_pk', ['collection_slug', 'offer_id'])
    .execute();
  await db.schema.createIndex('book_bids_offer').on('book_bids').column('offer_id').execute();
  // Levels: best price first, one group per target, streamed in index order.
  await db.schema.createIndex('book_bids_levels').on('book_bids').columns(['collection_slug', 'price_sats desc', 'level_key']).execute();
  // Individual offers: best price first, then oldest.
  await db.schema.createIndex('book_bids_offers').on('book_bids').columns(['collection_slug', 'price_sats desc', 'created_at', 'offer_id']).execute();

  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const stmt of [
      `CREATE TRIGGER book_bids_offer_insert AFTER INSERT ON offers BEGIN ${addOffer('NEW')}; END`,
      `CREATE TRIGGER book_bids_offer_delete AFTER DELETE ON offers BEGIN ${dropOffer('OLD')}; END`,
      `CREATE TRIGGER book_bids_offer_update AFTER UPDATE OF state, price_sats, expires_at ON offers
         BEGIN ${dropOffer('OLD')}; ${addOffer('NEW')}; END`,
      `CREATE TRIGGER book_bids_member_insert AFTER INSERT ON catalog_assets BEGIN ${addMember('NEW')}; END`,
      `CREATE TRIGGER book_bids_member_delete AFTER DELETE ON catalog_assets BEGIN ${dropMember('OLD')}; END`,
      `CREATE TRIGGER book_bids_member_update AFTER UPDATE OF asset, collection_slug ON catalog_assets BEGIN ${dropMember('OLD')}; ${addMember('NEW')}; END`,
    ]) {
      await sql.raw(stmt).execute(db);
    }
  } else {
    await sql.raw(`CREATE FUNCTION book_bids_of_offer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN ${dropOffer('OLD')}; END IF;
        IF TG_OP <> 'DELETE' THEN ${addOffer('NEW')}; END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`CREATE TRIGGER book_bids_offer AFTER INSERT OR DELETE OR UPDATE OF state, price_sats, expires_at ON offers
      FOR EACH ROW EXECUTE FUNCTION book_bids_of_offer()`).execute(db);
    await sql.raw(`CREATE FUNCTION book_bids_of_member() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN ${dropMember('OLD')}; END IF;
        IF TG_OP <> 'DELETE' THEN ${addMember('NEW')}; END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`CREATE TRIGGER book_bids_member AFTER INSERT OR DELETE OR UPDATE OF asset, collection_slug ON catalog_assets
      FOR EACH ROW EXECUTE FUNCTION book_bids_of_member()`).execute(db);
  }
}
