import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Db } from './db.js';

/**
 * Keyset paging, newest first, over one or several sources merged in SQL.
 *
 * A page is ordered by (time desc, key desc). Each source (a branch) applies the position
 * itself on its own indexed columns and takes at most `limit` rows; the branches are then
 * merged with UNION ALL and cut to `limit` again. So every branch walks its own index from the
 * position and stops after `limit` rows, whatever the others hold, on SQLite and PostgreSQL
 * alike (a compound member cannot carry ORDER BY/LIMIT itself, so each one is a subquery).
 */

/** The last row of a page: its time and its key (an event id or a row id). */
export type KeysetPosition = [time: number, key: string];

export const isKeysetPosition = (p: unknown): p is KeysetPosition =>
  Array.isArray(p) && p.length === 2 && Number.isSafeInteger(p[0]) && typeof p[1] === 'string' && p[1].length <= 200;

/**
 * `(time, key) < position`, written so the planner sees a range on `time` (the leading index
 * column) and tests the key only on ties.
 */
export const before = (time: Expression<number | null>, key: Expression<string>, [t, k]: KeysetPosition): RawBuilder<SqlBool> =>
  sql<SqlBool>`(${time} <= ${t} and (${time} < ${t} or ${key} < ${k}))`;

/**
 * Merges branches whose rows carry `timeCol` and `keyCol` and that are already ordered and
 * limited; returns at most `limit` rows in (time desc, key desc) order.
 */
export async function mergeBranches<Row>(
  db: Db,
  branches: SelectQueryBuilder<any, any, Row>[],
  timeCol: string,
  keyCol: string,
  limit: number,
): Promise<Row[]> {
  if (branches.length === 0) return [];
  const wrapped = branches.map((b, i) => db.selectFrom(b.as(`b${i}`)).selectAll() as unknown as SelectQueryBuilder<any, any, Row>);
  let union = wrapped[0]!;
  for (const w of wrapped.slice(1)) union = union.unionAll(w);
  return (await db
    .selectFrom(union.as('merged'))
    .selectAll()
    .orderBy(sql.ref(`merged.${timeCol}`), 'desc')
    .orderBy(sql.ref(`merged.${keyCol}`), 'desc')
    .limit(limit)
    .execute()) as Row[];
}

/** A typed SQL NULL of the given type: UNION ALL on PostgreSQL needs every branch's column types to agree. */
export const nullOf = <T>(type: 'text' | 'bigint' | 'integer'): RawBuilder<T | null> => sql<T | null>`cast(null as ${sql.raw(type)})`;
