/** SQLite statements kept by SQL text (src/store/statement-cache.ts): prepared once, still right after a schema change, streams included. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { keepStatements } from '../../src/store/statement-cache.js';

test('a query is prepared once, reused, re-read after a schema change, streamed, and the oldest is dropped at the bound', async () => {
  const raw = new Database(':memory:');
  let prepared = 0;
  const prepare = raw.prepare.bind(raw);
  raw.prepare = ((text: string) => (prepared++, prepare(text))) as typeof raw.prepare;
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: keepStatements(raw, 3) }) });
  await sql`create table t (a integer)`.execute(db);
  for (let i = 0; i < 5; i++) await db.insertInto('t').values({ a: i }).execute();
  const before = prepared;
  const all = () => db.selectFrom('t').selectAll().orderBy('a').execute();
  assert.deepEqual((await all()).map((r) => r.a), [0, 1, 2, 3, 4]);
  assert.equal((await all()).length, 5);
  assert.equal(prepared, before + 1, 'the same SQL is prepared once');
  // A kept statement sees the new column (SQLite recompiles it).
  await sql`alter table t add column b text default 'x'`.execute(db);
  assert.deepEqual((await all())[0], { a: 0, b: 'x' });
  // A stream and the same query again once it is done.
  const streamed = [];
  for await (const r of db.selectFrom('t').select('a').where('a', '>', 2).stream()) streamed.push(r.a);
  assert.deepEqual(streamed, [3, 4]);
  assert.equal((await db.selectFrom('t').select('a').where('a', '>', 2).execute()).length, 2);
  // Bounded: with three kept, a fourth query drops the least recently used.
  const p0 = prepared;
  await sql`select 1`.execute(db);
  await sql`select 2`.execute(db);
  await sql`select 3`.execute(db);
  await sql`select 1`.execute(db);
  await sql`select 4`.execute(db);
  await sql`select 1`.execute(db);
  assert.equal(prepared, p0 + 4, 'select 1 stayed kept: used most recently each time');
  await sql`select 2`.execute(db);
  assert.equal(prepared, p0 + 5, 'select 2 had been dropped');
  await db.destroy();
});
