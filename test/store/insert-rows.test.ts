/** Multi-row INSERTs written out once per shape (src/store/insert-rows.ts), on the backend under test. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { insertRows } from '../../src/store/insert-rows.js';
import type { Db } from '../../src/store/db.js';
import { testStore } from '../helpers/store.js';

test('insertRows binds each row in column order, in and out of a transaction; ON CONFLICT DO NOTHING returns only the rows it inserted', async () => {
  const h = await testStore();
  try {
    const db = h.store.db as unknown as Db;
    await sql`create table insert_rows_t (id text primary key, n integer not null, note text)`.execute(db);
    const put = (rows: object[], opts?: { conflictDoNothing?: string; returning?: string }) => insertRows(db, 'insert_rows_t' as never, rows as never, opts);
    await put([{ id: 'a', n: 1, note: null }, { id: 'b', n: 2, note: 'two' }]);
    // The same shape again (its kept text), then another row count and another column order.
    await put([{ id: 'c', n: 3, note: 'three' }, { id: 'd', n: 4, note: null }]);
    await put([{ note: 'five', n: 5, id: 'e' }]);
    await db.transaction().execute(async (tx) => {
      await insertRows(tx, 'insert_rows_t' as never, [{ id: 'f', n: 6, note: 'six' }] as never);
    });
    const rows = await (db as any).selectFrom('insert_rows_t').selectAll().orderBy('id').execute();
    assert.deepEqual(rows.map((r: any) => [r.id, Number(r.n), r.note]), [['a', 1, null], ['b', 2, 'two'], ['c', 3, 'three'], ['d', 4, null], ['e', 5, 'five'], ['f', 6, 'six']]);
    const taken = await put([{ id: 'a', n: 9, note: null }, { id: 'g', n: 7, note: null }, { id: 'b', n: 9, note: null }], { conflictDoNothing: 'id', returning: 'id' });
    assert.deepEqual(taken.rows.map((r) => r.id), ['g']);
    assert.equal(Number((await (db as any).selectFrom('insert_rows_t').select('n').where('id', '=', 'a').executeTakeFirst()).n), 1, 'the conflicting row is left as it was');
    assert.throws(() => put([{ id: 'h', n: 8, note: null }, { id: 'i', n: 9 }]), /rows with other columns/);
    assert.throws(() => put([{ id: 'h', n: 8 }, { id: 'i', note: 9 }]), /a row without n/);
    assert.throws(() => put([]), /no rows/);
  } finally {
    await h.cleanup();
  }
});
