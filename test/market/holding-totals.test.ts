/**
 * The holders' kept totals (migration 070) against a recount of the balance view after every
 * kind of change the market makes to what they count: the balance view replacing an asset's
 * holdings whole (a trade, a transfer, a reorg's re-read), an asset marked stale by a reorg and
 * fetched again, a catalogue imported again (members added, dropped, moved), a collection
 * deleted (its members go by cascade), and a holding changed in place. A seeded run of such
 * steps, each checked, and the holders read beside the recount read it used to make.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testStore, type TestStoreHandle } from '../helpers/store.js';
import type { Db } from '../../src/store/db.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { ASSETS_PER_HOLDER, HoldersService, percentCollected } from '../../src/modules/market/holders-service.js';
import { recount, same } from './holding-recount.js';
import { random } from '../helpers/seeded.js';

const handles: TestStoreHandle[] = [];
after(async () => {
  for (const h of handles) await h.cleanup();
});

/** A holder's member assets as the read ranked them before the kept rows: its holdings of the whole catalogue, numbered by units, then asset. */
async function assetsOf(db: Db, slug: string, address: string, n: number) {
  const r = await sql<{ asset: string }>`
    SELECT r.asset FROM (
      SELECT h.asset, row_number() OVER (PARTITION BY h.address ORDER BY h.units DESC, h.asset) AS rank
      FROM catalog_assets ca JOIN cp_holdings h ON h.asset = ca.asset WHERE ca.collection_slug = ${slug} AND h.units > 0 AND h.address = ${address}) r
    WHERE r.rank <= ${n} ORDER BY r.rank`.execute(db);
  return r.rows.map((x) => x.asset);
}

/** The holders answer as the read made it before the kept totals: counted from the balance view on each call. */
async function recountedHolders(db: Db, slug: string, n: number) {
  const want = await recount(db);
  const c = want.collections.find((x) => x.collection_slug === slug);
  const top = want.lines
    .filter((l) => l.collection_slug === slug)
    .sort((a, b) => Number(b.units) - Number(a.units) || Number(b.assets) - Number(a.assets) || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
    .slice(0, n);
  return {
    top: await Promise.all(
      top.map(async (t) => [t.address, t.units, t.assets, percentCollected(Number(t.assets), Number(c?.assets ?? 0)), await assetsOf(db, slug, t.address, ASSETS_PER_HOLDER)]),
    ),
    totals: [c?.holders ?? 0, c?.units ?? 0, c?.assets ?? 0, c?.indexed ?? 0],
  };
}

const ASSETS = Array.from({ length: 12 }, (_, i) => `TOTAL${String.fromCharCode(65 + i)}`);
const ADDRESSES = Array.from({ length: 9 }, (_, i) => `bcrt1qtotals${i}`);
const SLUGS = ['tot-a', 'tot-b', 'tot-c'];

test('the kept holder totals equal a recount after every change to holdings, catalogue and balance view', async () => {
  const h = await testStore();
  handles.push(h);
  const db = h.store.db;
  const next = random(3301);
  /** A catalogue of each asset in one or two collections (or none), as an operator's import. */
  const importSome = async () => {
    const assets: Array<{ asset: string; collection: string }> = [];
    for (const asset of ASSETS) {
      const k = next(5);
      if (k === 0) continue;
      assets.push({ asset, collection: SLUGS[k % 3]! });
      if (k === 4) assets.push({ asset, collection: SLUGS[(k + 1) % 3]! });
    }
    await importCatalog(db, { collections: SLUGS.map((slug) => ({ slug, name: slug })), artists: [], assets });
  };
  await importSome();
  await same(db, 'the first import');

  /** Most collections with holders seen at once, so the run is known to have counted something. */
  let busiest = 0;
  for (let step = 0; step < 60; step++) {
    const asset = ASSETS[next(ASSETS.length)]!;
    const kind = next(8);
    let what = '';
    await db.transaction().execute(async (tx) => {
      if (kind <= 2) {
        // The balance view's refresh of one asset (balance-view-watcher.ts `write`): its holdings replaced whole.
        what = `holdings of ${asset} replaced`;
        await tx.deleteFrom('cp_holdings').where('asset', '=', asset).execute();
        const held = ADDRESSES.filter(() => next(3) === 0).map((address) => ({ asset, address, units: next(4) }));
        if (held.length) await tx.insertInto('cp_holdings').values(held).execute();
        const row = { asset_longname: null, divisible: 0, refreshed_height: step, refreshed_at: step, stale: 0 };
        await tx.insertInto('cp_assets').values({ asset, ...row }).onConflict((oc) => oc.column('asset').doUpdateSet(row)).execute();
      } else if (kind === 3) {
        // A reorg disconnects the block of the last fetch.
        what = `${asset} marked stale`;
        await tx.updateTable('cp_assets').set({ stale: 1 }).where('asset', '=', asset).execute();
      } else if (kind === 4) {
        what = `${asset} forgotten by the view`;
        await tx.deleteFrom('cp_assets').where('asset', '=', asset).execute();
      } else if (kind === 5) {
        what = `one holding of ${asset} changed in place`;
        await tx.updateTable('cp_holdings').set({ units: next(3) }).where('asset', '=', asset).where('address', '=', ADDRESSES[next(ADDRESSES.length)]!).execute();
      } else if (kind === 6) {
        what = `a member of ${asset} moved`;
        const member = await tx.selectFrom('catalog_assets').select('collection_slug').where('asset', '=', asset).execute();
        const to = SLUGS.filter((slug) => !member.some((m) => m.collection_slug === slug));
        if (member.length && to.length) {
          await tx.updateTable('catalog_assets').set({ collection_slug: to[next(to.length)]! }).where('asset', '=', asset).where('collection_slug', '=', member[0]!.collection_slug).execute();
        }
      } else {
        what = 'the catalogue imported again';
      }
    });
    if (kind === 7) await importSome();
    await same(db, `step ${step}: ${what}`);
    busiest = Math.max(busiest, new Set((await db.selectFrom('holding_totals').select('collection_slug').execute()).map((r) => r.collection_slug)).size);
  }

  // The read itself answers what the recount answers, in its order and with its totals.
  const service = new HoldersService(db);
  for (const slug of SLUGS) {
    const got = await service.holders(slug, 50);
    const want = await recountedHolders(db, slug, 50);
    assert.deepEqual(
      got.holders.map((x) => [x.address, x.edition_units, x.distinct_assets, x.percent_collected, x.assets]),
      want.top,
      slug,
    );
    assert.deepEqual([got.holder_count, got.total_edition_units, got.collection_assets, got.indexed_assets], want.totals.map(Number), slug);
  }

  assert.equal(busiest, SLUGS.length, 'the run counted holders in every collection');

  // A holder of more member assets than the read lists: its first ones by units, then asset.
  await importCatalog(db, { collections: SLUGS.map((slug) => ({ slug, name: slug })), artists: [], assets: ASSETS.map((asset) => ({ asset, collection: SLUGS[1]! })) });
  const whale = 'bcrt1qtotalswhale';
  await db.insertInto('cp_holdings').values(ASSETS.map((asset, i) => ({ asset, address: whale, units: 100 + (i % 3) }))).execute();
  await same(db, 'a holder of every asset');
  const listed = (await service.holders(SLUGS[1]!, 50)).holders.find((x) => x.address === whale)!;
  assert.equal(listed.assets.length, ASSETS_PER_HOLDER);
  assert.deepEqual(listed.assets, await assetsOf(db, SLUGS[1]!, whale, ASSETS_PER_HOLDER));

  // A collection deleted: its members go by cascade, and its totals with them.
  await db.deleteFrom('collections').where('slug', '=', SLUGS[0]!).execute();
  await same(db, 'a collection deleted');
  assert.equal((await db.selectFrom('holding_totals').select('address').where('collection_slug', '=', SLUGS[0]!).execute()).length, 0);
});
