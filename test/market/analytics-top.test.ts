/**
 * The analytics' top sales when the market's dearest sales are older than the window: the walk
 * along `fills_top` gives up after TOP_WALK rows and the window is read day by day
 * (`fills_top_day`, migration 090). The answer is the window's ten dearest confirmed sales either
 * way, checked against a plain sort of every fill; the day read is an index range per day.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backend, testStore, type TestStoreHandle } from '../helpers/store.js';
import { random } from '../helpers/seeded.js';
import { AnalyticsService, TOP_SALES, TOP_WALK } from '../../src/modules/market/analytics-service.js';
import { insertFill } from './rows.js';

const handles: TestStoreHandle[] = [];
after(async () => {
  for (const h of handles) await h.cleanup();
});

const DAY = 86_400;
const AS_OF = 1_790_000_000;
const SINCE = AS_OF - 30 * DAY;

/** The window's ten dearest confirmed sales by a plain sort of every fill. */
async function sorted(db: TestStoreHandle['store']['db']) {
  const rows = await db
    .selectFrom('fills')
    .select(['txid', 'ref_id', 'price_sats', 'broadcast_at'])
    .where('state', '=', 'confirmed')
    .where('broadcast_at', '>=', SINCE)
    .where('broadcast_at', '<=', AS_OF)
    .orderBy('price_sats', 'desc')
    .orderBy('broadcast_at', 'desc')
    .orderBy('id')
    .limit(TOP_SALES)
    .execute();
  return rows.map((r) => [r.ref_id, Number(r.price_sats), Number(r.broadcast_at)]);
}

test('dearer sales before the window than the walk reads: the top ten come from the window, day by day, edges included', async () => {
  const h = await testStore();
  handles.push(h);
  const db = h.store.db;
  const service = new AnalyticsService(db, () => AS_OF);
  const next = random(9001);
  // The market's best month is behind it: more dearer sales before `since` than the walk reads.
  for (let i = 0; i < TOP_WALK + 20; i++) await insertFill(db, { asset: 'OLDA', price_sats: 1_000_000 + i, broadcast_at: SINCE - 1 - next(40 * DAY) });
  // Dear ones out of the window the other way, or not confirmed.
  await insertFill(db, { asset: 'LATE', price_sats: 5_000_000, broadcast_at: AS_OF + 1 });
  await insertFill(db, { asset: 'PEND', price_sats: 5_000_000, broadcast_at: AS_OF - DAY, state: 'pending' });
  await insertFill(db, { asset: 'DROP', price_sats: 5_000_000, broadcast_at: AS_OF - DAY, state: 'dropped' });
  // Few in the window at first: fewer than ten, then more, spread over its days and its two edges.
  await insertFill(db, { asset: 'EDGE', price_sats: 900, broadcast_at: SINCE });
  await insertFill(db, { asset: 'EDGE', price_sats: 901, broadcast_at: AS_OF });
  let top = (await service.snapshot()).top_sales;
  assert.deepEqual(
    top.map((s) => [s.ref_id, s.price_sats, s.broadcast_at]),
    await sorted(db),
  );
  assert.equal(top.length, 2, 'both edges are in the window');
  for (let i = 0; i < 40; i++) await insertFill(db, { asset: 'WIN', price_sats: 500 + next(1_000), broadcast_at: SINCE + next(30 * DAY + 1) });
  top = (await service.snapshot()).top_sales;
  assert.equal(top.length, TOP_SALES);
  assert.deepEqual(
    top.map((s) => [s.ref_id, s.price_sats, s.broadcast_at]),
    await sorted(db),
  );
  // And when the window does hold the dearest, the walk answers alone.
  for (let i = 0; i < 12; i++) await insertFill(db, { asset: 'BEST', price_sats: 9_000_000 + i, broadcast_at: AS_OF - next(30 * DAY) });
  top = (await service.snapshot()).top_sales;
  assert.deepEqual(
    top.map((s) => [s.ref_id, s.price_sats, s.broadcast_at]),
    await sorted(db),
  );
  assert.equal(top[0]!.price_sats, 9_000_011);
});

test('a window day is read along fills_top_day, in order, stopping at ten', async () => {
  const h = await testStore();
  handles.push(h);
  const db = h.store.db;
  const q = sql`SELECT id FROM fills f WHERE f.state = 'confirmed' AND f.broadcast_at / 86400 = ${20_000} AND f.broadcast_at >= ${SINCE} AND f.broadcast_at <= ${AS_OF} ORDER BY f.price_sats DESC, f.broadcast_at DESC, f.id LIMIT 10`;
  const c = q.compile(db);
  if (backend === 'sqlite') {
    const plan = (await db.executeQuery<{ detail: string }>({ ...c, sql: `EXPLAIN QUERY PLAN ${c.sql}` })).rows.map((r) => r.detail);
    assert.match(plan.join('\n'), /SEARCH f USING (COVERING )?INDEX fills_top_day \(state=\? AND <expr>=\?\)/);
    assert.ok(!plan.includes('USE TEMP B-TREE FOR ORDER BY'), plan.join('\n'));
  } else {
    const text = await db.connection().execute(async (conn) => {
      await sql`SET enable_seqscan = off`.execute(conn);
      await sql`SET enable_bitmapscan = off`.execute(conn);
      try {
        return (await conn.executeQuery<{ 'QUERY PLAN': string }>({ ...c, sql: `EXPLAIN ${c.sql}` })).rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await sql`RESET enable_seqscan`.execute(conn);
        await sql`RESET enable_bitmapscan`.execute(conn);
      }
    });
    assert.match(text, /Index (Only )?Scan using fills_top_day on fills f/, text);
    assert.ok(!/Sort/.test(text), text);
  }
});
