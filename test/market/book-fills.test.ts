/**
 * The book's kept fills (migration 085) against a recount of fills and catalogue after every kind
 * of change the market makes to what they hold: fills journaled (pending), confirmed by a block,
 * returned to pending by a reorg, dropped by a release, a fill row deleted; members moved or
 * removed, a catalogue imported again, a collection deleted (its members go by cascade). A seeded
 * run of such steps, each checked, and the book's recent fills read beside the walk it used to
 * make (the whole market's fills newest first, each checked for membership).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testStore, type TestStoreHandle } from '../helpers/store.js';
import { random } from '../helpers/seeded.js';
import type { Db } from '../../src/store/db.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { BookStore } from '../../src/modules/market/book-store.js';
import { FILL_COLUMNS, fillRow } from '../../src/modules/market/public-rows.js';
import { confirmFills, dropFills, recordFills, unconfirmFills } from '../../src/trade/fills.js';
import { FillStore } from '../../src/modules/fills/store.js';

const handles: TestStoreHandle[] = [];
after(async () => {
  for (const h of handles) await h.cleanup();
});

const ASSETS = Array.from({ length: 10 }, (_, i) => `FILLS${String.fromCharCode(65 + i)}`);
const SLUGS = ['fl-a', 'fl-b', 'fl-c'];
/** Fills shown per read: fewer than a collection gathers, so the read's cut is tested. */
const SHOWN = 4;

/** What `book_fills` should hold: every pending or confirmed fill once per collection of its asset. */
async function recount(db: Db) {
  const r = await sql<{ collection_slug: string; broadcast_at: number; fill_id: string }>`
    SELECT ca.collection_slug, f.broadcast_at, f.id AS fill_id FROM fills f JOIN catalog_assets ca ON ca.asset = f.asset
    WHERE f.state IN ('pending', 'confirmed') ORDER BY ca.collection_slug, f.broadcast_at, f.id`.execute(db);
  return r.rows.map((x) => ({ ...x, broadcast_at: Number(x.broadcast_at) }));
}

async function kept(db: Db) {
  const rows = await db.selectFrom('book_fills').selectAll().orderBy('collection_slug').orderBy('broadcast_at').orderBy('fill_id').execute();
  return rows.map((x) => ({ ...x, broadcast_at: Number(x.broadcast_at) }));
}

/** The book's recent fills as the read made them before the kept rows: the market's fills newest first, members only. */
async function walked(db: Db, slug: string, limit: number) {
  const rows = await db
    .selectFrom('fills as f')
    .select(FILL_COLUMNS)
    .where('f.state', 'in', ['pending', 'confirmed'])
    .where((eb) => eb.exists(eb.selectFrom('catalog_assets as ca').select('ca.asset').whereRef('ca.asset', '=', 'f.asset').where('ca.collection_slug', '=', slug)))
    .orderBy('f.broadcast_at', 'desc')
    .orderBy('f.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(fillRow);
}

/** Every fill id of `GET /v1/fills?collection=` (and `&status=confirmed`), newest first, as the walk over the market's fills finds them. */
async function walkedIds(db: Db, slug: string, status: 'confirmed' | undefined) {
  const rows = await db
    .selectFrom('fills as f')
    .select(['f.id', 'f.state'])
    .where('f.state', 'in', status ? [status] : ['pending', 'confirmed'])
    .where((eb) => eb.exists(eb.selectFrom('catalog_assets as ca').select('ca.asset').whereRef('ca.asset', '=', 'f.asset').where('ca.collection_slug', '=', slug)))
    .orderBy('f.broadcast_at', 'desc')
    .orderBy('f.id', 'desc')
    .execute();
  return rows.map((r) => r.id);
}

/** The fills route's collection pages (FillStore, a range of `book_fills`), three at a time, every page after the cursor of the last. */
async function pagedIds(db: Db, slug: string, status: 'confirmed' | undefined) {
  const store = new FillStore(db);
  const ids: string[] = [];
  let after: [number, string] | undefined;
  for (;;) {
    const page = await store.page({ role: 'any', collection: slug, ...(status ? { status } : {}) }, 3, after);
    ids.push(...page.map((r) => r.id));
    if (page.length < 3) return ids;
    const last = page[page.length - 1]!;
    after = [Number(last.broadcast_at), last.id];
  }
}

async function same(db: Db, step: string) {
  assert.deepEqual(await kept(db), await recount(db), `book_fills after ${step}`);
  const book = new BookStore(db);
  for (const slug of SLUGS) {
    const snap = await book.snapshot(slug, 1_000, 5, SHOWN);
    assert.deepEqual(snap.fills, await walked(db, slug, SHOWN), `${slug}'s recent fills after ${step}`);
    for (const status of [undefined, 'confirmed'] as const) {
      assert.deepEqual(await pagedIds(db, slug, status), await walkedIds(db, slug, status), `${slug}'s fills pages (${status ?? 'any status'}) after ${step}`);
    }
  }
}

test('the kept book fills equal a recount after every change to fills and catalogue, and the book reads what the walk read', async () => {
  const h = await testStore();
  handles.push(h);
  const db = h.store.db;
  const next = random(8501);
  /** A catalogue of each asset in one or two collections (or none), as an operator's import. */
  const importSome = async () => {
    const assets: Array<{ asset: string; collection: string; also_in?: string[] }> = [];
    for (const asset of ASSETS) {
      const k = next(7);
      if (k === 0) continue;
      assets.push({ asset, collection: SLUGS[k % 3]!, ...(k > 3 ? { also_in: [SLUGS[(k + 1) % 3]!] } : {}) });
    }
    await importCatalog(db, { collections: SLUGS.map((slug) => ({ slug, name: slug })), artists: [], assets });
  };
  await importSome();
  await same(db, 'the first import');

  const settlements: string[] = [];
  /** Each collection's most kept fills at once, so the run is known to have cut the read. */
  const most = new Map<string, number>();
  const gathered = new Map<string, number>();
  const states = async () => new Set((await db.selectFrom('fills').select('state').execute()).map((r) => r.state));
  for (let step = 0; step < 80; step++) {
    const kind = next(10);
    const settlement = settlements[next(Math.max(settlements.length, 1))];
    let what = '';
    await db.transaction().execute(async (tx) => {
      if (kind <= 2 || !settlement) {
        // A checkout journaled: one to three units of random assets, at times that tie now and then.
        const id = `st_${step}`;
        what = `settlement ${id} journaled`;
        settlements.push(id);
        const rows = Array.from({ length: 1 + next(3) }, (_, i) => ({
          settlement_id: id,
          txid: step.toString(16).padStart(64, '0'),
          kind: 'listing' as const,
          ref_id: `lst_${step}_${i}`,
          asset: ASSETS[next(ASSETS.length)]!,
          asset_longname: null,
          quantity_raw: '1',
          seller: 'bcrt1qseller',
          buyer: 'bcrt1qbuyer',
          payer: 'bcrt1qbuyer',
          price_sats: 1_000 + step,
          platform_fee_sats: 0,
          delivery_mode: 'detached' as const,
          broadcast_at: 100 + next(40),
        }));
        await recordFills(tx, rows, 100 + step);
      } else if (kind === 3 || kind === 4) {
        what = `${settlement} confirmed`;
        await confirmFills(tx, settlement, 800 + step, 200 + step);
      } else if (kind === 5) {
        // A reorg disconnects the confirming block.
        what = `${settlement} unconfirmed`;
        await unconfirmFills(tx, settlement, 200 + step);
      } else if (kind === 6) {
        what = `${settlement} dropped`;
        await dropFills(tx, settlement, 200 + step);
      } else if (kind === 7) {
        const asset = ASSETS[next(ASSETS.length)]!;
        what = `a member of ${asset} moved or removed`;
        const member = await tx.selectFrom('catalog_assets').select('collection_slug').where('asset', '=', asset).execute();
        const to = SLUGS.filter((slug) => !member.some((m) => m.collection_slug === slug));
        const from = tx.updateTable('catalog_assets').where('asset', '=', asset).where('collection_slug', '=', member[0]?.collection_slug ?? '');
        if (member.length && to.length && next(2) === 0) await from.set({ collection_slug: to[next(to.length)]! }).execute();
        else await tx.deleteFrom('catalog_assets').where('asset', '=', asset).where('collection_slug', '=', member[0]?.collection_slug ?? '').execute();
      } else if (kind === 8) {
        what = `a fill of ${settlement} deleted`;
        const one = await tx.selectFrom('fills').select('id').where('settlement_id', '=', settlement).orderBy('id').executeTakeFirst();
        if (one) await tx.deleteFrom('fills').where('id', '=', one.id).execute();
      } else {
        what = 'the catalogue imported again';
      }
    });
    if (kind === 9) await importSome();
    await same(db, `step ${step}: ${what}`);
    for (const r of await recount(db)) gathered.set(r.collection_slug, (gathered.get(r.collection_slug) ?? 0) + 1);
    for (const slug of SLUGS) most.set(slug, Math.max(most.get(slug) ?? 0, gathered.get(slug) ?? 0));
    gathered.clear();
  }

  // The run went through every state, and every collection held more fills than the book shows.
  assert.deepEqual([...(await states())].sort(), ['confirmed', 'dropped', 'pending']);
  for (const slug of SLUGS) assert.ok(most.get(slug)! > SHOWN, `${slug} held more than ${SHOWN} fills at some step (${most.get(slug)})`);

  // A collection deleted: its members go by cascade, and its kept fills with them.
  await db.deleteFrom('collections').where('slug', '=', SLUGS[0]!).execute();
  await same(db, 'a collection deleted');
  assert.equal((await db.selectFrom('book_fills').select('fill_id').where('collection_slug', '=', SLUGS[0]!).execute()).length, 0);
});
