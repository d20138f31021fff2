import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { testStore, type TestStoreHandle } from '../helpers/store.js';
import { artistIdOf, importCatalog } from '../../src/modules/market/catalog-import.js';
import { ArtistProfileStore } from '../../src/modules/market/artist-profile-store.js';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import demo from '../../src/demo/catalog.json' with { type: 'json' };
import { entryArgs } from '../../sim/processes.js';

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
  const r = spawnSync(process.execPath, [...entryArgs('src/cli/main.ts'), 'catalog-import', file], {
    env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent', DATABASE_URL: '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /imported 3 collections, 11 assets, 4 artists/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('catalogue editors and name_editable: stored per artist, replaced by the next import; a bad editor address refuses the file', async () => {
  const artists = [{ name: 'Ed Itor', name_editable: true, editors: ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'] }, { name: 'Plain' }];
  await importCatalog(h.store.db, { collections: [{ slug: 'solo', name: 'Solo' }], artists, assets: [] });
  const editors = async () => (await h.store.db.selectFrom('artist_editors').innerJoin('artists', 'artists.id', 'artist_editors.artist_id').select(['artists.name', 'address']).execute()).map((r) => [r.name, r.address]);
  assert.deepEqual(await editors(), [['Ed Itor', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq']]);
  const flags = await h.store.db.selectFrom('artists').select(['name', 'name_editable', 'version']).orderBy('name').execute();
  assert.deepEqual(flags.map((r) => [r.name, Number(r.name_editable), Number(r.version)]), [['Ed Itor', 1, 1], ['Plain', 0, 1]]);
  await assert.rejects(importCatalog(h.store.db, { collections: [], artists: [{ name: 'Bad', editors: ['not an address!'] }], assets: [] }), /editors/);
  await assert.rejects(importCatalog(h.store.db, { collections: [], artists: [{ name: 'Ed Itor' }, { name: 'Ed Itor', bio: 'again' }], assets: [] }), /listed twice/);
  await importCatalog(h.store.db, { collections: [], artists: [{ name: 'Ed Itor' }], assets: [] });
  assert.deepEqual(await editors(), []);
  const after = await h.store.db.selectFrom('artists').select(['name_editable', 'version']).executeTakeFirstOrThrow();
  assert.deepEqual([Number(after.name_editable), Number(after.version)], [0, 2], 'withdrawing the name permission is a new version');
});

test('npm run artist:edits prints the edit record as JSON lines, newest first; bad arguments exit non-zero', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-edits-'));
  const store = await openStore(`sqlite:${path.join(dir, 'market.sqlite')}`);
  await migrate(store);
  await importCatalog(store.db, { collections: [], artists: [{ name: 'Ed Itor' }, { name: 'Other' }], assets: [] });
  const edits = new ArtistProfileStore(store.db);
  const edit = { artistName: 'Ed Itor', values: { bio: 'b', website: null, x_url: null, display_name: null }, editor: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', grounds: { catalogue_editor: true, issued_assets: [] }, changes: { bio: { from: null, to: 'b' } } };
  assert.equal(await edits.apply({ ...edit, artistId: artistIdOf('Ed Itor'), fromVersion: 1, at: 1_800_000_000 }), 2);
  assert.equal(await edits.apply({ ...edit, artistId: artistIdOf('Ed Itor'), fromVersion: 1, at: 1_800_000_001 }), null, 'a stale version writes nothing');
  assert.equal(await edits.apply({ ...edit, artistName: 'Other', artistId: artistIdOf('Other'), fromVersion: 1, at: 1_800_000_002 }), 2);
  await store.close();

  const env = { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent', DATABASE_URL: '' };
  const run = (...args: string[]) => spawnSync(process.execPath, [...entryArgs('src/cli/main.ts'), 'artist-edits', ...args], { env, encoding: 'utf8', timeout: 60_000 });
  const all = run();
  assert.equal(all.status, 0, all.stderr);
  const lines = all.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  assert.deepEqual(lines.map((l) => [l.artist_name, l.version, l.edited_at]), [['Other', 2, 1_800_000_002], ['Ed Itor', 2, 1_800_000_000]]);
  assert.deepEqual(lines[1]!.changes, { bio: { from: null, to: 'b' } });
  assert.equal(lines[1]!.editor, edit.editor);
  const one = run('--artist', 'ed-itor', '--since', '1800000000');
  assert.deepEqual(one.stdout.trim().split('\n').map((l) => JSON.parse(l).artist_name), ['Ed Itor']);
  const bad = run('--limit', 'x');
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--limit must be an integer/);
  fs.rmSync(dir, { recursive: true, force: true });
});
