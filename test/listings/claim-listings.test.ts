/**
 * A cart's claim (listings/lifecycle.ts `claimListings`) reaches its rows by primary key: SQLite
 * would otherwise walk the state-and-expiry index over every live listing of the market (the
 * `+state` / `+expires_at` terms keep it off that index); PostgreSQL finds them by primary key and
 * locks them sorted by id, the order every cart takes (sequential scans disabled: an empty test
 * table would otherwise be read whole). A listing named twice is refused: one UPDATE would claim
 * it once for both lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backend, testStore } from '../helpers/store.js';
import { claimListings, claimListingsSql } from '../../src/modules/listings/lifecycle.js';

test('the claim of a 10-line cart reads the listings by primary key (PostgreSQL: locked in id order)', async () => {
  const h = await testStore();
  try {
    const db = h.store.db;
    const text = claimListingsSql(backend === 'sqlite', 10);
    const params = [1, ...Array.from({ length: 10 }, (_, i) => `lst_${i}`), 1, ...Array.from({ length: 10 }, (_, i) => [`lst_${i}`, 1]).flat()];
    if (backend === 'sqlite') {
      const r = await db.executeQuery<{ detail: string }>({ sql: `explain query plan ${text}`, parameters: params, query: undefined as never, queryId: undefined as never });
      const plan = r.rows.map((x) => x.detail);
      assert.deepEqual(plan, ['SEARCH listings USING INDEX sqlite_autoindex_listings_1 (id=?)'], plan.join('\n'));
      // Without the unary plus, SQLite takes the state-and-expiry index: the terms are why.
      const bare = await db.executeQuery<{ detail: string }>({ sql: `explain query plan ${text.replace('+state', 'state').replace('+expires_at', 'expires_at')}`, parameters: params, query: undefined as never, queryId: undefined as never });
      assert.match(bare.rows.map((x) => x.detail).join('\n'), /listings_state_expiry/);
      return;
    }
    const plan = await db.connection().execute(async (conn) => {
      await sql`set enable_seqscan = off`.execute(conn);
      try {
        // EXPLAIN of a statement with parameters: a prepared generic plan.
        await sql.raw(`prepare claim_plan as ${text}`).execute(conn);
        const r = await sql.raw<{ 'QUERY PLAN': string }>(`explain execute claim_plan(${params.map((p) => (typeof p === 'string' ? `'${p}'` : p)).join(', ')})`).execute(conn);
        await sql`deallocate claim_plan`.execute(conn);
        return r.rows.map((x) => x['QUERY PLAN']);
      } finally {
        await sql`reset enable_seqscan`.execute(conn);
      }
    });
    // The rows are locked after sorting them by id (LockRows above the Sort): the lock order.
    const lock = plan.findIndex((l) => /LockRows/.test(l));
    assert.ok(lock >= 0 && /Sort/.test(plan[lock + 1] ?? '') && /Sort Key: listings\.id/.test(plan[lock + 2] ?? ''), plan.join('\n'));
    assert.ok(plan.slice(lock).some((l) => /Index Scan on listings_pkey|Index Scan using listings_pkey/.test(l)), plan.join('\n'));
    assert.ok(!plan.some((l) => /Seq Scan on listings/.test(l)), plan.join('\n'));
  } finally {
    await h.cleanup();
  }
});

test('a listing named twice is refused before anything is claimed', async () => {
  const h = await testStore();
  try {
    await assert.rejects(
      h.store.db.transaction().execute((tx) => claimListings(tx, [{ id: 'lst_a', version: 1 }, { id: 'lst_b', version: 1 }, { id: 'lst_a', version: 1 }], 1)),
      /a listing named twice/,
    );
  } finally {
    await h.cleanup();
  }
});
