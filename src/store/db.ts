import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Transaction } from 'kysely';
import { keepStatements } from './statement-cache.js';
import { KeyedLock } from './keyed-lock.js';
import type { DatabaseSchema } from './schema.js';
import { hookTransactions } from './tx-hooks.js';
import type { Unlisten } from './pg-listen.js';

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
  /**
   * PostgreSQL only: runs `fn` on a connection of its own that has no query deadline
   * (StoreOptions.queryTimeoutMs), for work that may rightly run long: migrations.
   */
  unbounded?<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
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
  /** PostgreSQL: how long a request waits for a connection, the pool's queue included (PG_CONNECT_TIMEOUT_MS; default 5,000). */
  connectTimeoutMs?: number;
  /** PostgreSQL: how long a query may go unanswered before its connection is dropped (PG_QUERY_TIMEOUT_MS; default 30,000; 0: never). */
  queryTimeoutMs?: number;
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
  // PostgreSQL's modules (pg, its protocol and types, our prepared-statement client and LISTEN)
  // are loaded only for a PostgreSQL URL: the default SQLite store never uses them
  // (docs/performance.md, idle memory).
  const { openPgStore } = await import('./pg-store.js');
  return openPgStore(url, opts);
}

/** Drops a PostgreSQL schema (tests clean up after themselves). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const { dropPgSchema } = await import('./pg-store.js');
  return dropPgSchema(url, schema);
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
  // The last two: no connection within PG_CONNECT_TIMEOUT_MS (the pool's wait, or the connect itself).
  return /Connection terminated|not queryable|connection error|timeout exceeded when trying to connect|timeout expired/i.test(err?.message ?? '');
}

/** True when the error is a unique-constraint violation on either backend. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err?.code === '23505' || err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || err?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
