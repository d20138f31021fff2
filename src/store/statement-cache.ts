import type Database from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * better-sqlite3 for Kysely with its prepared statements kept, by SQL text: Kysely prepares
 * every query anew, and preparing compiles the statement and every trigger it fires (a listing
 * write compiles the book's triggers), which costs more than running it. Kysely runs one query
 * at a time on the connection, streams included, so a kept statement is never busy when reused;
 * a schema change makes SQLite recompile it on its next run.
 */
export function keepStatements(db: Database.Database, size = 1_000): SqliteDatabase {
  const kept = new Map<string, Database.Statement>();
  return {
    close: () => void db.close(),
    prepare(text: string) {
      let stmt = kept.get(text);
      if (stmt) {
        // Most recently used last, so the oldest is the one dropped.
        kept.delete(text);
      } else {
        stmt = db.prepare(text);
        if (kept.size >= size) kept.delete(kept.keys().next().value!);
      }
      kept.set(text, stmt);
      return stmt;
    },
  };
}
