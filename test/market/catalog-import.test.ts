import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { testStore, type TestStoreHandle } from '../helpers/store.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import demo from '../../src/demo/catalog.json' with { type: 'json' };

let h: TestStoreHandle;
before(async () => {
  h = await testStore();
});
after(async () => h.cleanup());

test('import replaces the whole catalogue; a bad file changes nothing', async () => {
  const n = await importCatalog(h.store.db, demo);
  assert.deepEqual(n, { collections: 3, assets: 11, artists: 4 });
  const rows = await h.store.db.selectFrom('catalog_assets').select(['asset', 'collection_slug', 'is_primary']).where('asset', '=', 'FAKEPIXEL').orderBy('is_primary', 'desc').execute();
  assert.deepEqual(rows, [
    { asset: 'FAKEPIXEL', collection_slug: 'fake-rares', is_primary: 1 },
    { asset: 'FAKEPIXEL', collection_slug: 'rare-pepes', is_primary: 0 },
  ]);
  await assert.rejects(importCatalog(h.store.db, { ...demo, assets: [{ asset: 'PEPE.child', collection: 'rare-pepes' }] }), /asset/);
  await assert.rejects(importCatalog(h.store.db, { ...demo, assets: [{ asset: 'PEPEX', collection: 'nowhere' }] }), /unknown collection nowhere/);
  assert.equal((await h.store.db.selectFrom('catalog_assets').select('asset').execute()).length, 12);
  await importCatalog(h.store.db, { collections: [{ slug: 'solo', name: 'Solo' }], artists: [], assets: [{ asset: 'SOLOCARD', collection: 'solo' }] });
  assert.deepEqual((await h.store.db.selectFrom('collections').select('slug').execute()).map((r) => r.slug), ['solo']);
});

test('npm run catalog:import -- FILE loads a file into the configured store', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-cat-'));
  const file = path.join(dir, 'catalog.json');
  fs.writeFileSync(file, JSON.stringify(demo));
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'catalog-import', file], {
    env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent', DATABASE_URL: '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /imported 3 collections, 11 assets, 4 artists/);
  fs.rmSync(dir, { recursive: true, force: true });
});
