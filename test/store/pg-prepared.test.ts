/**
 * Queries marked with PREPARED_MARK go to PostgreSQL as named prepared statements (planned once
 * per connection); every other query stays unnamed. Read off pg_prepared_statements on the one
 * connection of a pool of one. And the connections' own settings. PostgreSQL only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { backend, pgUrl } from '../helpers/store.js';
import { dropSchema, openStore } from '../../src/store/db.js';
import { PREPARED_MARK } from '../../src/store/pg-prepared.js';

void test('a marked query is a named prepared statement, reused; an unmarked one is not prepared', { skip: backend !== 'postgres' && 'PostgreSQL only' }, async () => {
  const schema = `t_prep_${crypto.randomBytes(4).toString('hex')}`;
  const store = await openStore(pgUrl, { schema, poolSize: 1 });
  try {
    const prepared = async () =>
      (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(store.db)).rows;
    assert.deepEqual(await prepared(), []);
    const marked = (n: number) => sql<{ x: number }>`select ${sql.raw(PREPARED_MARK)} ${n}::int + 1 as x`.execute(store.db);
    assert.equal((await marked(1)).rows[0]!.x, 2);
    assert.equal((await marked(41)).rows[0]!.x, 42, 'the same statement with other parameters');
    await sql`select 2 as unmarked`.execute(store.db);
    const rows = await prepared();
    assert.equal(rows.length, 1, JSON.stringify(rows));
    assert.match(rows[0]!.name, /^k_[0-9a-f]{24}$/);
    assert.ok(rows[0]!.statement.includes(PREPARED_MARK));
  } finally {
    await store.close();
    await dropSchema(pgUrl, schema);
  }
});

void test('no parallel plans on the market\'s connections (a bounded walk never pays for starting workers)', { skip: backend !== 'postgres' && 'PostgreSQL only' }, async () => {
  const schema = `t_par_${crypto.randomBytes(4).toString('hex')}`;
  const store = await openStore(pgUrl, { schema, poolSize: 2 });
  try {
    // Each of the pool's connections, side by side.
    const shown = await Promise.all([0, 1].map(() => sql<{ v: string }>`select current_setting('max_parallel_workers_per_gather') as v, pg_sleep(0.05)`.execute(store.db)));
    assert.deepEqual(shown.map((r) => r.rows[0]!.v), ['0', '0']);
  } finally {
    await store.close();
    await dropSchema(pgUrl, schema);
  }
});
