import { CompiledQuery, SqliteAdapter, type Insertable, type QueryResult } from 'kysely';
import type { Db, Tx } from './db.js';
import type { DatabaseSchema } from './schema.js';

/**
 * A multi-row INSERT of a hot write path (a checkout's fills, event rows, outpoint claims),
 * written out once per shape instead of built and compiled by Kysely on every run: Kysely makes
 * a node of every value and visits each to compile (a 10-line cart's fills and their 20 events
 * are over 300 values), which cost more than SQLite spends inserting them. The text is kept per
 * dialect adapter, table, columns, row count and clause; the rows' values are bound in column
 * order, as Kysely binds them (no conversion either way).
 *
 * Every row must carry exactly the columns of the first (a missing one would silently shift the
 * values). `conflictDoNothing`: `ON CONFLICT (column) DO NOTHING`; `returning`: one column back.
 */
export function insertRows<T extends keyof DatabaseSchema & string>(
  db: Db | Tx,
  table: T,
  rows: ReadonlyArray<Insertable<DatabaseSchema[T]>>,
  opts: { conflictDoNothing?: string; returning?: string } = {},
): Promise<QueryResult<Record<string, unknown>>> {
  const first = rows[0];
  if (!first) throw new Error(`insertRows(${table}): no rows`);
  const columns = Object.keys(first);
  const parameters: unknown[] = [];
  for (const row of rows) {
    const r = row as Record<string, unknown>;
    if (Object.keys(r).length !== columns.length) throw new Error(`insertRows(${table}): rows with other columns than ${columns.join(', ')}`);
    for (const c of columns) {
      if (!(c in r)) throw new Error(`insertRows(${table}): a row without ${c}`);
      parameters.push(r[c]);
    }
  }
  const adapter = db.getExecutor().adapter;
  let texts = kept.get(adapter);
  if (!texts) kept.set(adapter, (texts = new Map()));
  const key = `${table}\n${columns.join(',')}\n${rows.length}\n${opts.conflictDoNothing ?? ''}\n${opts.returning ?? ''}`;
  let text = texts.get(key);
  if (!text) {
    text = insertText(adapter instanceof SqliteAdapter, table, columns, rows.length, opts);
    if (texts.size >= 500) texts.clear();
    texts.set(key, text);
  }
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

const kept = new WeakMap<object, Map<string, string>>();

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

function insertText(sqlite: boolean, table: string, columns: string[], n: number, opts: { conflictDoNothing?: string; returning?: string }): string {
  let k = 0;
  const value = () => (sqlite ? '?' : `$${++k}`);
  const tuples = Array.from({ length: n }, () => `(${columns.map(value).join(', ')})`).join(', ');
  let text = `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) values ${tuples}`;
  if (opts.conflictDoNothing) text += ` on conflict (${quoted(opts.conflictDoNothing)}) do nothing`;
  if (opts.returning) text += ` returning ${quoted(opts.returning)}`;
  return text;
}
