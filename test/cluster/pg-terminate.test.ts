/**
 * A database failover or restart ends every session the instances hold (pool, LISTEN, leader,
 * advisory-lock sessions). Found from outside (#32): two instances on PostgreSQL + Redis both
 * died of an unheard pg 'error' event when their connections were terminated. Here every
 * session of both instances is terminated four times, idle and mid-traffic: both stay up, answer
 * ready again, and a sale still completes once, with one fill.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { terminateSessionsOf as terminate } from '../../sim/pg-sessions.js';
import { makeWallet } from '../helpers/wallets.js';
import { backend, pgUrl, redisUrl } from '../helpers/store.js';
import { call, until, type Market } from '../helpers/crash.js';
import { openSse } from '../helpers/sse.js';
import { clusterRig } from '../helpers/cluster.js';

const SKIP = backend !== 'postgres' || !redisUrl ? 'several instances need PostgreSQL and Redis (TEST_BACKEND=postgres with TEST_POSTGRES_URL and TEST_REDIS_URL)' : false;
const cluster = clusterRig('pt');

const terminateSessionsOf = (markets: Market[]) => terminate(pgUrl, markets.map((m) => m.proc.pid!));

const alive = (m: Market) => m.proc.exitCode === null && m.proc.signalCode === null;

void test('terminating every PostgreSQL session of both instances, four times: both stay up, answer ready, and trade once', { timeout: 240_000, skip: SKIP }, async () => {
  const { rig: r, markets } = await cluster.start({ instances: 2, tickMs: 1_000, redis: redisUrl! });
  const [a, b] = markets;
  const streams = await Promise.all(markets.map((m) => openSse(`${m.url}/v1/stream/events`)));
  assert.deepEqual(streams.map((s) => s.status), [200, 200]);

  for (let round = 1; round <= 4; round++) {
    // Traffic in flight while the sessions die: sign-in challenges (writes) and uncached reads.
    // Each round speaks from an address of its own, so the sign-in budget per IP is never the limit.
    const traffic = Promise.all(markets.flatMap((m, i) => Array.from({ length: 10 }, (_, k) =>
      fetch(`${m.url}/v1/auth/challenge`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${round * 20 + i * 10 + k}` },
        body: JSON.stringify({ address: makeWallet('p2wpkh', `pt-${round}-${i}-${k}`).address }),
      }).then((x) => x.status),
    )));
    const killed = await terminateSessionsOf(markets);
    assert.ok(killed >= 2, `round ${round}: sessions of both instances were found and terminated (${killed})`);
    const statuses = await traffic;
    // A request whose session died answers 503 service_unavailable, never a 5xx of another kind.
    assert.ok(statuses.every((s) => s === 200 || s === 503), `round ${round}: ${statuses.join(',')}`);
    await new Promise((res) => setTimeout(res, 500));
    for (const m of markets) assert.ok(alive(m), `round ${round}: the instance on port ${new URL(m.url).port} is still running:\n${m.output().slice(-3000)}`);
    for (const m of markets) {
      await until(`round ${round}: ready again`, async () => ((await fetch(`${m.url}/readyz`)).status === 200 ? true : undefined), 20_000);
    }
  }

  // The market still trades, once: two buyers race for one listing across the instances.
  const { listingId } = await r.listedUnit(a, makeWallet('p2wpkh', 'pt-seller'), 21_000);
  const one = await r.signedQuote(a, listingId, makeWallet('p2wpkh', 'pt-buyer-a'), makeWallet('p2wpkh', 'pt-dest-a'));
  const two = await r.signedQuote(b, listingId, makeWallet('p2wpkh', 'pt-buyer-b'), makeWallet('p2wpkh', 'pt-dest-b'));
  const raced = await Promise.all([
    call(a.url, 'POST', `/v1/checkout/quotes/${one.q.id}/complete`, { psbt_hex: one.signed }, one.token),
    call(b.url, 'POST', `/v1/checkout/quotes/${two.q.id}/complete`, { psbt_hex: two.signed }, two.token),
  ]);
  assert.deepEqual(raced.map((x) => x.status).sort(), [200, 409], JSON.stringify(raced.map((x) => x.body)));
  for (const s of streams) s.close();
  for (const m of markets) assert.ok(alive(m));
});
