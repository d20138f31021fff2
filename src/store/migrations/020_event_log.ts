import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The ordered event log (src/events/): an outbox every writer appends to in the transaction of
 * its transition, read by `after=` on the feeds, the stream and the webhooks. `event_seq` is the
 * one-row counter the appending transaction bumps as its last statement (src/events/append.ts
 * says why that makes seq order commit order); `pruned_through` is the highest seq the retention
 * job deleted, so a reader asking from before it learns it must resync.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('event_log')
    .addColumn('seq', 'bigint', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('feed', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('retracts', 'text')
    .addColumn('row_json', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('event_log_owner').on('event_log').columns(['address', 'seq']).execute();
  await db.schema.createIndex('event_log_feed').on('event_log').columns(['feed', 'seq']).execute();
  await db.schema.createIndex('event_log_recorded').on('event_log').column('recorded_at').execute();
  // A retraction's frame takes the filter keys of the event it withdraws (the stream looks it up by id).
  await db.schema.createIndex('event_log_event').on('event_log').column('event_id').execute();
  await db.schema
    .createTable('event_seq')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last', 'bigint', (c) => c.notNull())
    .addColumn('pruned_through', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into event_seq (id, last, pruned_through) values (1, 0, 0)`.execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // Every appending transaction bumps the counter, so one trigger tells every instance's
    // listeners (src/events/pg-notifier.ts). NOTIFY is delivered on commit, never on rollback.
    // One channel for all schemas (a channel name is capped at 63 bytes); the payload names the schema.
    await sql`create or replace function event_seq_notify() returns trigger language plpgsql as $$
      begin perform pg_notify('market_event_log', current_schema() || ':' || NEW.last::text); return NEW; end $$`.execute(db);
    await sql`create trigger event_seq_notify after update of last on event_seq for each row execute function event_seq_notify()`.execute(db);
  }
}
