import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropSchema, openStore, type Store } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';

export const backend = (process.env.TEST_BACKEND ?? 'sqlite') as 'sqlite' | 'postgres';
export const pgUrl = process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const redisUrl = process.env.TEST_REDIS_URL || undefined;

export interface TestStoreHandle {
  store: Store;
  /** DATABASE_URL (+ schema) that reopens the same data, for restart tests. */
  url: string;
  schema: string | undefined;
  reopen(): Promise<Store>;
  cleanup(): Promise<void>;
}

/** A fresh, migrated store on the backend under test: a temp SQLite file or a PostgreSQL schema of its own. */
export async function testStore(): Promise<TestStoreHandle> {
  if (backend === 'postgres') {
    const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
    const store = await openStore(pgUrl, { schema, poolSize: 5 });
    await migrate(store);
    return {
      store, url: pgUrl, schema,
      reopen: async () => openStore(pgUrl, { schema, poolSize: 5 }),
      cleanup: async () => { await store.close().catch(() => {}); await dropSchema(pgUrl, schema); },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-'));
  const url = `sqlite:${path.join(dir, 'market.sqlite')}`;
  const store = await openStore(url);
  await migrate(store);
  return {
    store, url, schema: undefined,
    reopen: async () => openStore(url),
    cleanup: async () => { await store.close().catch(() => {}); fs.rmSync(dir, { recursive: true, force: true }); },
  };
}
