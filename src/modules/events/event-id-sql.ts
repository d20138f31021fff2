import { sql, type Expression, type RawBuilder } from 'kysely';

/**
 * The SQL twin of listings/store.ts `eventId(kind, subject)`: `ev_` + the first 32 hex digits of
 * sha256(kind + "\n" + subject). Derived events get the id a stored row of the same (kind,
 * subject) has, so the feeds can order, page and dedupe on it in SQL. `sha256_hex` is built in
 * on PostgreSQL (migration 010) and registered on every SQLite connection (store/db.ts); a test
 * pins this expression to `eventId`.
 */
export const eventIdSql = (kind: string, subject: Expression<string>): RawBuilder<string> =>
  sql<string>`('ev_' || substr(sha256_hex(${sql.lit(`${kind}\n`)} || ${subject}), 1, 32))`;
