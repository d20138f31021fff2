/**
 * The feeds and the fills read walk indexes: every branch of every filter combination, on the
 * first page and after a cursor. SQLite: no table scan and no full sort (only ties on the
 * second key are sorted). PostgreSQL (sequential scans disabled, so an index path must exist):
 * no sequential scan of the tables read.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Compilable } from 'kysely';
import { backend, testStore, type TestStoreHandle } from '../helpers/store.js';
import { PublicEventStore } from '../../src/modules/events/public-store.js';
import { OwnerEventStore } from '../../src/modules/events/owner-store.js';
import { FillStore, type FillFilters } from '../../src/modules/fills/store.js';
import type { KeysetPosition } from '../../src/store/keyset.js';

let h: TestStoreHandle;
before(async () => {
  h = await testStore();
});
after(async () => h.cleanup());

async function plan(q: Compilable): Promise<string[]> {
  const c = q.compile();
  const db = h.store.db;
  if (backend === 'sqlite') {
    const r = await db.executeQuery<{ detail: string }>({ ...c, sql: `explain query plan ${c.sql}` });
    return r.rows.map((x) => x.detail);
  }
  return db.connection().execute(async (conn) => {
    await sql`set enable_seqscan = off`.execute(conn);
    try {
      const r = await conn.executeQuery<{ 'QUERY PLAN': string }>({ ...c, sql: `explain ${c.sql}` });
      return r.rows.map((x) => x['QUERY PLAN']);
    } finally {
      await sql`reset enable_seqscan`.execute(conn);
    }
  });
}

/** `sortable`: a sort is fine when the rows come from an index lookup by asset (bounded by the assets' own fills). */
function assertIndexed(lines: string[], what: string, sortable = false) {
  const text = lines.join('\n');
  if (backend === 'sqlite') {
    for (const l of lines) if (/^SCAN /.test(l)) assert.match(l, /USING (COVERING )?INDEX/, `${what}: table scan\n${text}`);
    const bounded = sortable && lines.some((l) => /USING INDEX fills_asset \(asset=\?/.test(l));
    if (!bounded) assert.ok(!lines.some((l) => l === 'USE TEMP B-TREE FOR ORDER BY'), `${what}: full sort\n${text}`);
  } else {
    assert.ok(!/Seq Scan on (fills|listings|owner_events|offers)/.test(text), `${what}: sequential scan\n${text}`);
  }
}

const positions: Array<KeysetPosition | undefined> = [undefined, [1_700_000_000, 'ev_0123']];

void test('public feed branches use their indexes', async () => {
  const s = new PublicEventStore(h.store.db);
  for (const kind of [undefined, 'sales', 'listings', 'offers'] as const) {
    for (const after of positions) {
      for (const [i, b] of s.branches(kind, 1_800_000_000, 51, after).entries()) assertIndexed(await plan(b), `events kind=${kind} branch ${i} after=${!!after}`);
    }
  }
});

void test('owner feed branches use their indexes', async () => {
  const s = new OwnerEventStore(h.store.db);
  for (const after of positions) {
    for (const [i, b] of s.branches('bcrt1qexample', 1_800_000_000, 51, after).entries()) assertIndexed(await plan(b), `owner branch ${i} after=${!!after}`);
  }
});

void test('fills branches use their indexes for every filter', async () => {
  const s = new FillStore(h.store.db);
  const filters: FillFilters[] = [
    { role: 'any' },
    { role: 'any', status: 'confirmed' },
    { role: 'any', status: 'pending' },
    { role: 'seller', address: 'bcrt1qexample' },
    { role: 'buyer', address: 'bcrt1qexample' },
    { role: 'any', address: 'bcrt1qexample' },
    { role: 'any', asset: 'PEPEONE' },
    { role: 'any', collection: 'alpha' },
    { role: 'any', address: 'bcrt1qexample', asset: 'PEPEONE', collection: 'alpha', status: 'confirmed' },
  ];
  for (const f of filters) {
    for (const after of [undefined, [1_700_000_000, 'fill_0'] as KeysetPosition]) {
      // A collection filter narrowed by an address, an asset or `pending` may read its member assets' fills by asset and sort them.
      for (const [i, b] of s.branches(f, 51, after).entries()) assertIndexed(await plan(b), `fills ${JSON.stringify(f)} branch ${i} after=${!!after}`, !!f.collection);
    }
  }
});

void test('a collection\'s fills (any status, or confirmed) read book_fills by its key (on SQLite a range in order, no sort), not the market\'s fills', async () => {
  const s = new FillStore(h.store.db);
  for (const f of [{ role: 'any', collection: 'alpha' }, { role: 'any', collection: 'alpha', status: 'confirmed' }] satisfies FillFilters[]) {
    for (const after of [undefined, [1_700_000_000, 'fill_0'] as KeysetPosition]) {
      const branches = s.branches(f, 51, after);
      assert.equal(branches.length, 1);
      const lines = await plan(branches[0]!);
      const text = lines.join('\n');
      assertIndexed(lines, `fills ${JSON.stringify(f)} after=${!!after}`);
      if (backend === 'sqlite') assert.match(lines[0]!, /SEARCH bf USING (COVERING )?INDEX (book_fills_pk|sqlite_autoindex_book_fills_1) \(collection_slug=\?/, text);
      // PostgreSQL plans an empty test table as it likes (a sort of a handful of rows, or the other
      // way round); it reads book_fills by its key either way, and the bench market shows the range.
      else assert.match(text, /(using|Scan on) book_fills_pk/, text);
    }
  }
});
