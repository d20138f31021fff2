/**
 * A PostgreSQL that stops answering without closing anything: a primary that hangs, or a
 * failover that leaves the old connections black-holed behind a moved address. A TCP proxy in
 * front of the suite's server stops passing bytes (test/helpers/freezing-proxy.ts). Before the
 * deadlines (src/store/pg-prepared.ts, pg-store.ts) a query on such a connection waited for
 * TCP's retransmission limit (about 15 minutes, measured here past 20 s) and held its pooled
 * connection: one stall took the whole pool.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { dropSchema, isStoreUnavailable, openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { backend, pgUrl } from '../helpers/store.js';
import { freezingProxy } from '../helpers/freezing-proxy.js';
import { testApp } from '../helpers/app.js';
import { makeWallet } from '../helpers/wallets.js';

const SKIP = backend !== 'postgres' && 'PostgreSQL only';

/** The suite's server, reached through `proxyUrl`'s port. */
const through = (proxyUrl: string) => {
  const u = new URL(pgUrl);
  u.hostname = '127.0.0.1';
  u.port = new URL(proxyUrl).port;
  return u.toString();
};

/** How a query ended and when: its error (if any) and the milliseconds it took. */
async function timed(q: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const t0 = Date.now();
  try {
    await q;
    return { error: null, ms: Date.now() - t0 };
  } catch (error) {
    return { error, ms: Date.now() - t0 };
  }
}

void test('a frozen server costs a query its deadline and a waiting one its connect timeout, both retryable; thawed, the pool serves again', { skip: SKIP, timeout: 60_000 }, async () => {
  const proxy = await freezingProxy(pgUrl);
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const store = await openStore(through(proxy.url), { schema, poolSize: 2, queryTimeoutMs: 1_000, connectTimeoutMs: 600 });
  try {
    await migrate(store);
    // Both connections of the pool open (two at once), so the freeze holds them both.
    await Promise.all([0, 1].map(() => sql`select pg_sleep(0.05)`.execute(store.db)));
    proxy.freeze();
    // Two queries take both connections and wait on a server that answers nothing; the third waits for a connection.
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => timed(sql`select 1`.execute(store.db))));
    for (const r of [a!, b!]) {
      assert.ok(r.error, 'a query on a frozen connection fails');
      assert.ok(isStoreUnavailable(r.error), `retryable (503): ${String(r.error)}`);
      assert.ok(r.ms >= 900 && r.ms < 5_000, `at its deadline: ${r.ms} ms`);
    }
    assert.ok(c!.error && isStoreUnavailable(c!.error), `the waiting query is refused, retryable: ${String(c!.error)}`);
    assert.ok(c!.ms < 5_000, `within the connect timeout: ${c!.ms} ms`);
    // Thawed: the dropped connections are gone from the pool and new ones answer at once.
    proxy.thaw();
    for (let i = 0; i < 3; i++) assert.equal((await timed(sql`select 1`.execute(store.db))).error, null);
  } finally {
    await store.close().catch(() => undefined);
    proxy.close();
    await dropSchema(pgUrl, schema);
  }
});

void test('a failover that black-holes the open connections: the market answers 503 at the deadline, then trades on new connections', { skip: SKIP, timeout: 90_000 }, async () => {
  const proxy = await freezingProxy(pgUrl);
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const url = through(proxy.url);
  const open = () => openStore(url, { schema, poolSize: 3, queryTimeoutMs: 1_500, connectTimeoutMs: 1_000 });
  const store = await open();
  await migrate(store);
  const t = await testApp({
    storeHandle: {
      store, url, schema,
      reopen: open,
      cleanup: async () => {
        await store.close().catch(() => undefined);
        proxy.close();
        await dropSchema(pgUrl, schema);
      },
    },
  });
  const challenge = (seed: string) =>
    t.app.inject({ method: 'POST', url: '/v1/auth/challenge', headers: { 'content-type': 'application/json' }, payload: { address: makeWallet('p2wpkh', seed).address } });
  try {
    assert.equal((await challenge('stall-0')).statusCode, 200);
    // Warm every connection of the pool, so the black hole swallows them all.
    await Promise.all([1, 2, 3, 4, 5, 6].map((i) => challenge(`stall-warm-${i}`)));
    proxy.blackhole();
    const t0 = Date.now();
    const during = await Promise.all([1, 2, 3].map((i) => challenge(`stall-${i}`)));
    const ms = Date.now() - t0;
    for (const r of during) {
      // Either the request met a dead connection (its deadline) or a fresh one (the new primary).
      assert.ok(r.statusCode === 503 || r.statusCode === 200, `${r.statusCode} ${r.body}`);
      if (r.statusCode === 503) {
        assert.equal((JSON.parse(r.body) as { code: string }).code, 'service_unavailable');
        assert.equal(r.headers['retry-after'], '2');
      }
    }
    assert.ok(during.some((r) => r.statusCode === 503), 'a request met a black-holed connection');
    assert.ok(ms < 10_000, `answered within the deadlines, not TCP's 15 minutes: ${ms} ms`);
    // The dead connections leave the pool as they meet their deadline: within one more deadline
    // the market answers every request again.
    let ok = 0;
    const until = Date.now() + 8_000;
    for (let i = 0; ok < 5; i++) {
      assert.ok(Date.now() < until, 'the market answers again on new connections');
      const r = await challenge(`stall-after-${i}`);
      ok = r.statusCode === 200 ? ok + 1 : 0;
    }
  } finally {
    await t.close();
  }
});
