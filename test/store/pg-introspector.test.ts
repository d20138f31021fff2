/**
 * On PostgreSQL the migrator's table lookup sees our schema only, so another instance dropping
 * its own schema at the same moment cannot fail our migration (Kysely's stock introspector read
 * every schema and failed with "schema … does not exist").
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import pg from 'pg';
import { backend, pgUrl, testStore, type TestStoreHandle } from '../helpers/store.js';

const onPostgres = { skip: backend !== 'postgres' ? 'PostgreSQL only' : false };
let h: TestStoreHandle;
before(async () => {
  if (backend === 'postgres') h = await testStore();
});
after(async () => h?.cleanup());

void test('the table lookup lists our schema\'s tables only', onPostgres, async () => {
  const tables = await h.store.db.introspection.getTables();
  assert.ok(tables.some((t) => t.name === 'listings'));
  assert.ok(tables.some((t) => t.name === 'kysely_migration'), 'the migrator finds its own table');
  assert.deepEqual([...new Set(tables.map((t) => t.schema))], [h.schema]);
});

void test('schemas created and dropped meanwhile by others never fail the lookup', onPostgres, async () => {
  const other = new pg.Client({ connectionString: pgUrl });
  await other.connect();
  let churn = true;
  const churning = (async () => {
    while (churn) {
      const s = `churn_${crypto.randomBytes(4).toString('hex')}`;
      await other.query(`create schema ${s}; create table ${s}.t (id serial primary key, v text); create table ${s}.u (id serial primary key)`);
      await other.query(`drop schema ${s} cascade`);
    }
  })();
  try {
    for (let i = 0; i < 60; i++) await h.store.db.introspection.getTables();
  } finally {
    churn = false;
    await churning;
    await other.end();
  }
});
