/**
 * DATABASE_READ_URL: the public market reads go to `store.read` and nothing else does. The
 * "replica" here is a second store holding a collection the primary lacks: the public
 * collection reads show it, the primary never does. On PostgreSQL, openStore with a read URL
 * opens a pool of its own for it, read-only in use, and closes it with the store.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { bootstrap } from '../../src/bootstrap.js';
import { buildApp } from '../../src/app.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { openStore } from '../../src/store/db.js';
import { backend, pgUrl, testStore, type TestStoreHandle } from '../helpers/store.js';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function store(): Promise<TestStoreHandle> {
  const s = await testStore();
  cleanups.push(() => s.cleanup());
  return s;
}

void test('public market reads are served from the read pool; the primary is never asked for them', { timeout: 60_000 }, async () => {
  const primary = await store();
  const replica = await store();
  await importCatalog(replica.store.db, { collections: [{ slug: 'on-the-replica', name: 'Replica' }], artists: [], assets: [] });
  const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));
  const config = loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false', SIGNER_DIR: tmp('cpmkt-signer-'), MARKET_WALLET_DIR: tmp('cpmkt-wallet-') });
  const boot = await bootstrap(config, { store: { ...primary.store, read: replica.store.db }, logger: pino({ level: 'silent' }) });
  cleanups.push(() => boot.close());
  const app = await buildApp(boot.ctx);
  cleanups.push(() => app.close());

  const list = await app.inject({ method: 'GET', url: '/v1/collections' });
  assert.equal(list.statusCode, 200, list.body);
  assert.deepEqual((JSON.parse(list.body).result as Array<{ slug: string }>).map((c) => c.slug), ['on-the-replica']);
  const one = await app.inject({ method: 'GET', url: '/v1/collections/on-the-replica' });
  assert.equal(one.statusCode, 200, one.body);
  assert.equal((await primary.store.db.selectFrom('collections').selectAll().execute()).length, 0, 'the primary has no such collection');
});

void test('PostgreSQL: DATABASE_READ_URL opens a pool of its own beside the primary', { timeout: 30_000, skip: backend !== 'postgres' && 'PostgreSQL only (a replica needs one)' }, async () => {
  const primary = await store();
  // The primary itself stands in for the replica, seen through a second pool.
  const s = await openStore(pgUrl, { schema: primary.schema!, poolSize: 2, readUrl: `${pgUrl}?application_name=market-read-pool` });
  cleanups.push(() => s.close());
  assert.notEqual(s.read, s.db);
  const who = await sql<{ name: string }>`select current_setting('application_name') as name`.execute(s.read);
  assert.equal(who.rows[0]?.name, 'market-read-pool');
  const count = await s.read.selectFrom('collections').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(count.n), 0);
});
