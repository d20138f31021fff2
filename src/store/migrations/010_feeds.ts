import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The fills read and the two event feeds derive their rows from fills and listings (nothing
 * is copied into a table of its own), so each branch of a feed needs an index that yields its
 * rows in time order:
 *
 * - the public feed and the fills read: sales by broadcast_at, listings by activated_at and by
 *   (state, ended_at) (expiry uses listings_state_expiry from 007);
 * - the owner feed: confirmations by (seller|buyer, confirmed_at) and a seller's expiring
 *   listings by (seller, expires_at) (fills by seller and buyer by broadcast_at are 008's;
 *   stored owner events are 007's owner_events_feed).
 *
 * Event ids are sha256-based (listings/store.ts `eventId`) and the feeds break ties on them, so
 * SQL needs sha256: PostgreSQL gets `sha256_hex(text)` here; SQLite gets the same function
 * registered on each connection (store/db.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('fills_broadcast').on('fills').columns(['broadcast_at', 'id']).execute();
  await db.schema.createIndex('fills_seller_confirmed').on('fills').columns(['seller', 'confirmed_at']).execute();
  await db.schema.createIndex('fills_buyer_confirmed').on('fills').columns(['buyer', 'confirmed_at']).execute();
  await db.schema.createIndex('listings_activated').on('listings').column('activated_at').execute();
  await db.schema.createIndex('listings_ended').on('listings').columns(['state', 'ended_at']).execute();
  await db.schema.createIndex('listings_seller_expiry').on('listings').columns(['seller', 'expires_at']).execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create or replace function sha256_hex(t text) returns text language sql immutable strict parallel safe
      as $$ select encode(sha256(convert_to(t, 'UTF8')), 'hex') $$`.execute(db);
  }
}
