import { sql, SqliteAdapter, type Kysely } from 'kysely';

/** Collection (policy) offers, their accepts and the market's anchor pool (src/modules/policy-offers/tables.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('policy_funding_sets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('bidder', 'text', (c) => c.notNull())
    .addColumn('bidder_key', 'text', (c) => c.notNull())
    .addColumn('delivery_address', 'text', (c) => c.notNull())
    .addColumn('parent_txid', 'text', (c) => c.notNull())
    .addColumn('parent_psbt', 'text', (c) => c.notNull())
    .addColumn('parent_signed_psbt', 'text')
    .addColumn('parent_vsize', 'integer', (c) => c.notNull())
    .addColumn('funding_json', 'text', (c) => c.notNull())
    .addColumn('anchor_outpoint', 'text', (c) => c.notNull())
    .addColumn('anchor_value_sats', 'bigint', (c) => c.notNull())
    .addColumn('escrow_value_sats', 'bigint', (c) => c.notNull())
    .addColumn('max_price_sats', 'bigint', (c) => c.notNull())
    .addColumn('escrow_script', 'text', (c) => c.notNull())
    .addColumn('market_key', 'text', (c) => c.notNull())
    .addColumn('market_key_version', 'integer', (c) => c.notNull())
    .addColumn('refund_csv_blocks', 'integer', (c) => c.notNull())
    .addColumn('alternatives_json', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('request_sha256', 'text')
    .addColumn('cancel_json', 'text')
    .addColumn('end_reason', 'text')
    .addColumn('spent_txid', 'text')
    .addColumn('spent_height', 'integer')
    .addColumn('settlement_id', 'text')
    .addColumn('accept_id', 'text')
    .addColumn('preflight_expires_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Not unique: a preflight that lapsed unplaced leaves its parent free to be built again from the same coins and anchor.
  await db.schema.createIndex('policy_sets_parent').on('policy_funding_sets').column('parent_txid').execute();
  await db.schema.createIndex('policy_sets_bidder').on('policy_funding_sets').columns(['bidder', 'state']).execute();
  await db.schema.createIndex('policy_sets_state').on('policy_funding_sets').columns(['state', 'expires_at']).execute();

  // Which funding set each funding input backs (the watcher's lookup of spends).
  await db.schema
    .createTable('policy_funding_inputs')
    .addColumn('outpoint', 'text', (c) => c.notNull())
    .addColumn('funding_set_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('policy_funding_inputs_pk', ['outpoint', 'funding_set_id'])
    .execute();

  await db.schema
    .createTable('policy_offers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('funding_set_id', 'text', (c) => c.notNull())
    .addColumn('alt_index', 'integer', (c) => c.notNull())
    .addColumn('bidder', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('asset', 'text')
    .addColumn('collection', 'text')
    .addColumn('max_supply_units', 'integer')
    .addColumn('min_supply_units', 'integer')
    .addColumn('issued_year', 'integer')
    .addColumn('series', 'integer')
    .addColumn('artist', 'text')
    .addColumn('level_key', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('presignature', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('end_reason', 'text')
    .addColumn('filled_txid', 'text')
    .addColumn('ended_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('policy_offers_set_index', ['funding_set_id', 'alt_index'])
    .execute();
  await db.schema.createIndex('policy_offers_bidder').on('policy_offers').columns(['bidder', 'created_at', 'id']).execute();
  await db.schema.createIndex('policy_offers_live_asset').on('policy_offers').columns(['state', 'asset', 'price_sats']).execute();
  await db.schema.createIndex('policy_offers_live_collection').on('policy_offers').columns(['state', 'collection', 'price_sats']).execute();
  await db.schema.createIndex('policy_offers_set').on('policy_offers').columns(['funding_set_id', 'state']).execute();
  // The public feed's offer branches (created, ended, expiring) walk these.
  await db.schema.createIndex('policy_offers_created').on('policy_offers').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('policy_offers_ended').on('policy_offers').columns(['ended_at', 'id']).execute();
  await db.schema.createIndex('policy_offers_state_expires').on('policy_offers').columns(['state', 'expires_at']).execute();

  await db.schema
    .createTable('policy_accepts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('funding_set_id', 'text', (c) => c.notNull())
    .addColumn('offer_id', 'text', (c) => c.notNull())
    .addColumn('seller', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('quantity_raw', 'text', (c) => c.notNull())
    .addColumn('asset_outpoint', 'text', (c) => c.notNull())
    .addColumn('utxo_value_sats', 'bigint', (c) => c.notNull())
    .addColumn('psbt', 'text', (c) => c.notNull())
    .addColumn('expected_txid', 'text', (c) => c.notNull())
    .addColumn('price_sats', 'bigint', (c) => c.notNull())
    .addColumn('platform_fee_sats', 'bigint', (c) => c.notNull())
    .addColumn('network_fee_sats', 'bigint', (c) => c.notNull())
    .addColumn('seller_proceeds_sats', 'bigint', (c) => c.notNull())
    .addColumn('fee_rate', 'double precision', (c) => c.notNull())
    .addColumn('parent_vsize', 'integer', (c) => c.notNull())
    .addColumn('child_vsize', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('settlement_id', 'text')
    .addColumn('listing_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('policy_accepts_set').on('policy_accepts').columns(['funding_set_id', 'state']).execute();

  await db.schema
    .createTable('market_anchors')
    .addColumn('outpoint', 'text', (c) => c.primaryKey())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('vout', 'integer', (c) => c.notNull())
    .addColumn('value_sats', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('funding_set_id', 'text')
    .addColumn('reserved_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('market_anchors_state').on('market_anchors').columns(['state', 'created_at']).execute();
  await bookTriggers(db.getExecutor().adapter instanceof SqliteAdapter, (s) => sql.raw(s).execute(db));
}

/**
 * Live alternatives join the book's bid side (`book_bids`, 017) the way `offers` do: a collection
 * or trait alternative in its collection, an asset alternative in each collection of its asset.
 * `slot_id` holds the funding set (one escrow backs every alternative of the set).
 */
const COLS = 'collection_slug, price_sats, level_key, created_at, offer_id, slot_id, kind, expires_at';
const addAlt = (n: string) => `INSERT INTO book_bids (${COLS})
  SELECT ${n}.collection, ${n}.price_sats, ${n}.level_key, ${n}.created_at, ${n}.id, ${n}.funding_set_id, ${n}.kind, ${n}.expires_at
    WHERE ${n}.scope = 'collection' AND ${n}.state = 'active'
  UNION ALL
  SELECT ca.collection_slug, ${n}.price_sats, ${n}.level_key, ${n}.created_at, ${n}.id, ${n}.funding_set_id, ${n}.kind, ${n}.expires_at
    FROM catalog_assets ca WHERE ${n}.scope = 'asset' AND ca.asset = ${n}.asset AND ${n}.state = 'active'`;
const dropAlt = (o: string) => `DELETE FROM book_bids WHERE offer_id = ${o}.id`;
const addMember = (n: string) => `INSERT INTO book_bids (${COLS})
  SELECT ${n}.collection_slug, o.price_sats, o.level_key, o.created_at, o.id, o.funding_set_id, o.kind, o.expires_at
    FROM policy_offers o WHERE o.scope = 'asset' AND o.asset = ${n}.asset AND o.state = 'active'`;
const dropMember = (o: string) =>
  `DELETE FROM book_bids WHERE collection_slug = ${o}.collection_slug AND offer_id IN (SELECT id FROM policy_offers WHERE scope = 'asset' AND asset = ${o}.asset)`;

async function bookTriggers(sqlite: boolean, raw: (s: string) => Promise<unknown>): Promise<void> {
  if (sqlite) {
    for (const stmt of [
      `CREATE TRIGGER book_bids_policy_insert AFTER INSERT ON policy_offers BEGIN ${addAlt('NEW')}; END`,
      `CREATE TRIGGER book_bids_policy_delete AFTER DELETE ON policy_offers BEGIN ${dropAlt('OLD')}; END`,
      `CREATE TRIGGER book_bids_policy_update AFTER UPDATE OF state ON policy_offers BEGIN ${dropAlt('OLD')}; ${addAlt('NEW')}; END`,
      `CREATE TRIGGER book_bids_policy_member_insert AFTER INSERT ON catalog_assets BEGIN ${addMember('NEW')}; END`,
      `CREATE TRIGGER book_bids_policy_member_delete AFTER DELETE ON catalog_assets BEGIN ${dropMember('OLD')}; END`,
    ]) await raw(stmt);
    return;
  }
  await raw(`CREATE FUNCTION book_bids_of_policy() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN ${dropAlt('OLD')}; END IF;
      IF TG_OP <> 'DELETE' THEN ${addAlt('NEW')}; END IF;
      RETURN NULL;
    END $$`);
  await raw(`CREATE TRIGGER book_bids_policy AFTER INSERT OR DELETE OR UPDATE OF state ON policy_offers FOR EACH ROW EXECUTE FUNCTION book_bids_of_policy()`);
  await raw(`CREATE FUNCTION book_bids_of_policy_member() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN ${dropMember('OLD')}; END IF;
      IF TG_OP <> 'DELETE' THEN ${addMember('NEW')}; END IF;
      RETURN NULL;
    END $$`);
  await raw(`CREATE TRIGGER book_bids_policy_member AFTER INSERT OR DELETE ON catalog_assets FOR EACH ROW EXECUTE FUNCTION book_bids_of_policy_member()`);
}
