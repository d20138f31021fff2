import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Kysely, SqliteDialect, sql, type Transaction } from 'kysely';
import { keepStatements } from './statement-cache.js';
import { SchemaScopedPostgresDialect } from './pg-introspector.js';
import { KeyedLock } from './keyed-lock.js';
import type { DatabaseSchema } from './schema.js';
import { hookTransactions } from './tx-hooks.js';
import { pgListen, type Unlisten } from './pg-listen.js';
import { PreparingClient } from './pg-prepared.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<DatabaseSchema>;
export type Tx = Transaction<DatabaseSchema>;

export interface Store {
  db: Db;
  /** Public reads only: a read replica's pool when one is configured (DATABASE_READ_URL), else `db`. */
  read: Db;
  /** The connection string (leadership opens a session of its own on it). */
  url: string;
  dialect: Dialect;
  /** PostgreSQL schema in use (null on SQLite). */
  schema: string | null;
  /** One critical section at a time per key, across instances on PostgreSQL. */
  locks: KeyedLock;
  /** PostgreSQL only: LISTEN on `channel` over a connection of its own (pg-listen.ts). */
  listen?(channel: string, onMessage: (payload: string) => void, onReconnect: () => void): Unlisten;
  ping(): Promise<void>;
  close(): Promise<void>;
}

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

/**
 * `applicationName` names the instance's PostgreSQL sessions (pg_stat_activity), so an operator can
 * tell whose they are; `onConnectionError` hears a session the server ended (a failover, a restart,
 * pg_terminate_backend): the pool drops it and the next query opens another.
 */
export interface StoreOptions {
  schema?: string;
  poolSize?: number;
  readUrl?: string;
  applicationName?: string;
  onConnectionError?: (err: Error) => void;
}

export async function openStore(url: string, opts: StoreOptions = {}): Promise<Store> {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const sqlite = new Database(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // PostgreSQL has it built in (migration 010 wraps it under the same name): event ids are
    // sha256-based and the feeds order and page on them in SQL.
    sqlite.function('sha256_hex', { deterministic: true }, (t: unknown) =>
      t === null ? null : crypto.createHash('sha256').update(String(t), 'utf8').digest('hex'),
    );
    const db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: keepStatements(sqlite) }) });
    hookTransactions(db);
    return {
      db,
      read: db,
      url,
      dialect: 'sqlite',
      schema: null,
      locks: new KeyedLock(null),
      ping: async () => void (await sql`select 1`.execute(db)),
      close: () => db.destroy(),
    };
  }
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
  const poolOf = (connectionString: string) => {
    const pool = new pg.Pool({
      Client: PreparingClient, connectionString, max: opts.poolSize ?? 10, types: pgTypes(), options: `-c search_path=${schema}`,
      ...(appName ? { application_name: appName } : {}),
    });
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
    close: async () => {
      if (read !== db) await read.destroy();
      await db.destroy();
    },
  };
}

/** Drops a PostgreSQL schema (tests clean up after themselves). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

/**
 * True when the database, not the request, failed: the server ended the session (failover,
 * restart, terminate: class 57P), the connection broke (class 08) or could not be opened.
 * Such a request is worth retrying in a moment; it is never the client's mistake.
 */
export function isStoreUnavailable(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  const code = typeof err?.code === 'string' ? err.code : '';
  if (/^(57P0[123]|08\d\d\d)$/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code)) return true;
  return /Connection terminated|not queryable|connection error/i.test(err?.message ?? '');
}

/** True when the error is a unique-constraint violation on either backend. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err?.code === '23505' || err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || err?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
