/** Statements compiled once per store (src/store/compiled.ts), on the backend under test: each run binds its own arguments. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { compiledOnce } from '../../src/store/compiled.js';
import type { Db, Tx } from '../../src/store/db.js';
import { testStore } from '../helpers/store.js';

test('a guarded UPDATE compiled once claims only the row its arguments name, in and out of a transaction', async () => {
  const h = await testStore();
  try {
    const db = h.store.db as unknown as Db;
    await sql`create table compiled_t (id text primary key, state text not null, version integer not null, expires_at integer not null, updated_at integer not null)`.execute(db);
    const any = db as any;
    await any.insertInto('compiled_t').values([
      { id: 'a', state: 'active', version: 1, expires_at: 100, updated_at: 0 },
      { id: 'b', state: 'active', version: 2, expires_at: 100, updated_at: 0 },
    ]).execute();
    let built = 0;
    const claim = compiledOnce((d: Db | Tx, id: string, version: number, at: number) => {
      built++;
      return (d as any).updateTable('compiled_t').set({ state: 'reserved', updated_at: at }).where('id', '=', id).where('state', '=', 'active').where('version', '=', version).where('expires_at', '>', at);
    });
    const n = async (d: Db | Tx, id: string, version: number, at: number) => Number((await claim(d, id, version, at)).numAffectedRows);
    assert.equal(await n(db, 'a', 2, 10), 0, 'another version');
    assert.equal(await n(db, 'a', 1, 100), 0, 'expired at that time');
    assert.equal(await n(db, 'b', 2, 20), 1);
    assert.equal(await n(db, 'b', 2, 21), 0, 'claimed already: the state guard is the constant');
    await db.transaction().execute(async (tx) => assert.equal(await n(tx, 'a', 1, 30), 1));
    assert.equal(built, 1, 'built and compiled once');
    const rows = await any.selectFrom('compiled_t').selectAll().orderBy('id').execute();
    assert.deepEqual(rows.map((r: any) => [r.id, r.state, Number(r.updated_at)]), [['a', 'reserved', 30], ['b', 'reserved', 20]]);
    assert.throws(() => compiledOnce((d: Db | Tx, _unused: number) => (d as any).selectFrom('compiled_t').selectAll())(db, 1), /argument 0 is no parameter/);
  } finally {
    await h.cleanup();
  }
});
