/**
 * The PostgreSQL store (`openStore` in db.ts with a postgres:// URL), in a module of its own so
 * that pg and everything built on it are loaded only when PostgreSQL is configured.
 */
import pg from 'pg';
import { Kysely, sql } from 'kysely';
import type { DatabaseSchema } from './schema.js';
import type { Store, StoreOptions } from './db.js';
import { SchemaScopedPostgresDialect } from './pg-introspector.js';
import { KeyedLock } from './keyed-lock.js';
import { hookTransactions } from './tx-hooks.js';
import { pgListen } from './pg-listen.js';
import { PreparingClient } from './pg-prepared.js';
import { PG_SESSION } from './pg-session.js';

/** Satoshis are bigint in PostgreSQL; every amount is ≤ 2^53−1, so read them back as numbers on both backends. */
const PG_INT8 = 20;
const PG_NUMERIC = 1700;
function pgTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) => {
      if (oid === PG_INT8 || oid === PG_NUMERIC) return (v: string) => (v === null ? null : Number(v));
      return pg.types.getTypeParser(oid, format as 'text');
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
}

export async function openPgStore(url: string, opts: StoreOptions): Promise<Store> {
  const schema = opts.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  // The schema is made on a connection of its own, committed, before any pooled
  // connection (whose search_path names it) runs a query.
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create schema if not exists ${schema}`);
  } finally {
    await admin.end();
  }
  const onError = opts.onConnectionError ?? (() => {});
  const appName = opts.applicationName?.slice(0, 63);
  // No parallel plans on the market's connections: every read is a bounded index walk that stops
  // at its LIMIT, and starting workers (10-15 ms) never pays for one. With the statistics of a fresh
  // 1 M market PostgreSQL chose a Gather Merge with two workers for the trait-filtered offer targets
  // (the walk's full cost estimated, not its LIMIT): 21 ms where the serial walk takes 1.5.
  //
  // A database that stops answering must cost a request seconds, not the pool (pg-prepared.ts): a
  // connection is awaited at most `connectTimeoutMs` (the pool's wait included), a query at most
  // `queryTimeoutMs`, and TCP keepalive finds an idle connection whose peer is gone.
  const poolOf = (connectionString: string, queryDeadlineMs = opts.queryTimeoutMs ?? 30_000, max = opts.poolSize ?? 10) => {
    const pool = new pg.Pool({
      Client: PreparingClient, connectionString, max, types: pgTypes(), options: `-c search_path=${schema} -c max_parallel_workers_per_gather=0`,
      ...PG_SESSION,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? PG_SESSION.connectionTimeoutMillis,
      queryDeadlineMs,
      ...(appName ? { application_name: appName } : {}),
    } as pg.PoolConfig & { queryDeadlineMs: number });
    // A pg client emits 'error' when the server ends its session. The pool listens only while the
    // client is idle (it drops it); a client checked out by a query or a transaction has no
    // listener then, and an unheard 'error' event ends the process: one database restart would
    // take every instance down at once. The query in flight fails by itself (the request answers
    // 503); the listener only keeps the process alive and says so.
    pool.on('error', onError);
    pool.on('connect', (client) => client.on('error', onError));
    return pool;
  };
  const pool = poolOf(url);
  // Fail fast on an unreachable server instead of at the first request.
  const client = await pool.connect();
  try {
    const found = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
    if (found.rowCount !== 1) throw new Error(`schema ${schema} was not created`);
  } finally {
    client.release();
  }
  const db = new Kysely<DatabaseSchema>({ dialect: new SchemaScopedPostgresDialect({ pool }, schema) });
  hookTransactions(db);
  // The replica streams the primary's schema; it is never migrated nor written through this pool.
  const read = opts.readUrl ? new Kysely<DatabaseSchema>({ dialect: new SchemaScopedPostgresDialect({ pool: poolOf(opts.readUrl) }, schema) }) : db;
  return {
    db,
    read,
    url,
    dialect: 'postgres',
    schema,
    locks: new KeyedLock(url, schema, { applicationName: appName, onError }),
    listen: (channel, onMessage, onReconnect) => pgListen(url, channel, onMessage, onReconnect, appName),
    ping: async () => void (await sql`select 1`.execute(db)),
    unbounded: async (fn) => {
      // One connection of its own with no query deadline: a migration's index build over a large
      // table may rightly take longer than a request ever should.
      const own = new Kysely<DatabaseSchema>({ dialect: new SchemaScopedPostgresDialect({ pool: poolOf(url, 0, 1) }, schema) });
      try {
        return await fn(own);
      } finally {
        await own.destroy();
      }
    },
    close: async () => {
      if (read !== db) await read.destroy();
      await db.destroy();
    },
  };
}

/** Drops a PostgreSQL schema (`dropSchema` in db.ts). */
export async function dropPgSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}
