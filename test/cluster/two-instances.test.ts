/**
 * #17 item 6: several API processes on one PostgreSQL schema and one Redis, beside one standalone
 * devnet (real processes: test/helpers/crash.ts). Two buyers, one on each instance, race for one
 * listing: one fill, one broadcast, and a stream client on the other instance hears the sale. The sign-in budget of an IP is one budget across instances, and so is its limit of concurrent streams.
 * The indexer runs on one instance only; SIGKILL of that leader moves indexing to the other with
 * no block applied twice and none skipped; SIGTERM of a leader hands its roles over at once (its
 * notification, well inside the follower's tick). A seller's webhook endpoint that fails three
 * times then recovers receives every event of the seller's feed exactly once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWallet } from '../helpers/wallets.js';
import { backend, redisUrl } from '../helpers/store.js';
import { call, until, type Market } from '../helpers/crash.js';
import { openSse } from '../helpers/sse.js';
import { clusterRig } from '../helpers/cluster.js';

const SKIP = backend !== 'postgres' || !redisUrl ? 'several instances need PostgreSQL and Redis (TEST_BACKEND=postgres with TEST_POSTGRES_URL and TEST_REDIS_URL)' : false;
/** The followers' tick: SIGKILL moves a role within it; SIGTERM must not wait for it. */
const TICK_MS = 2_500;

const cluster = clusterRig('cl');
const { receiver } = cluster;

void test('two instances: one fill per listing, one shared limit, one indexer that survives SIGKILL and SIGTERM of its leader, the stream across instances, webhooks once each', { timeout: 300_000, skip: SKIP }, async (t) => {
  // A third instance stands by for the SIGTERM handover (started beside the second: one wait).
  const { rig: r, markets: [a, b, c], holder, leads: leadsRole } = await cluster.start({ instances: 3, tickMs: TICK_MS, redis: redisUrl!, over: { STREAM_MAX_PER_IP: '3' } });
  const leads = (m: Market, role = 'indexer') => leadsRole(m, role);
  assert.ok(await leads(a), 'the first instance up leads the indexer');
  const metrics = async (m: Market) => (await fetch(`${m.url}/metrics`)).text();
  assert.match(await metrics(a), /market_leader\{role="indexer"\} 1/);
  assert.match(await metrics(b), /market_leader\{role="indexer"\} 0/);

  // One budget per IP across instances: 60 sign-in requests (class sign_in) from one address.
  const signInFrom = (m: Market, ip: string) =>
    fetch(`${m.url}/v1/auth/challenge`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: '{}' }).then((res) => res.status);
  const ip = '198.51.100.23';
  const spent = await Promise.all(Array.from({ length: 60 }, (_, i) => signInFrom(i % 2 ? b : a, ip)));
  assert.ok(!spent.includes(429), `within the budget: ${spent.join(',')}`);
  assert.deepEqual([await signInFrom(a, ip), await signInFrom(b, ip)], [429, 429], 'the 61st is refused on either instance');

  // The stream limit per IP is one count across instances (slots on Redis): three streams from one
  // address over both, the fourth refused on either, a slot given back on one usable on the other.
  const streamFrom = (m: Market, from: string) => openSse(`${m.url}/v1/stream/events`, { 'x-forwarded-for': from });
  const viewer = '198.51.100.41';
  const held = [await streamFrom(a, viewer), await streamFrom(a, viewer), await streamFrom(b, viewer)];
  assert.deepEqual(held.map((x) => x.status), [200, 200, 200]);
  const over = [await streamFrom(b, viewer), await streamFrom(a, viewer)];
  assert.deepEqual(over.map((x) => [x.status, x.body?.code]), [[429, 'rate_limited'], [429, 'rate_limited']], 'the fourth stream, on either instance');
  held[0]!.close();
  const again = await until('the slot given back on A to be usable on B', async () => {
    const x = await streamFrom(b, viewer);
    return x.status === 200 ? x : undefined;
  }, 5_000);
  for (const x of [...held, again]) x.close();

  // The seller's webhook endpoint, registered on the second instance, fails three times, then recovers.
  const seller = makeWallet('p2wpkh', 'cl-seller');
  await receiver.start();
  receiver.script('/hook', [{ status: 500 }, { status: 500 }, { status: 500 }]);
  const sellerToken = await r.signIn(b, seller);
  const hook = await call(b.url, 'POST', `/v1/address/${seller.address}/webhooks`, { url: `${receiver.base}/hook` }, sellerToken);
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  receiver.secrets.set('/hook', [hook.body.result.secret as string]);

  // A buyer on each instance races for one listing.
  const { listingId, asset } = await r.listedUnit(a, seller, 31_000);
  // A stream client on each instance, so the one on the instance that did not complete the sale hears it.
  const streams = await Promise.all([a, b].map((m) => openSse(`${m.url}/v1/stream/events?kind=sales&asset=${asset}`)));
  assert.deepEqual(streams.map((x) => x.status), [200, 200]);
  const one = await r.signedQuote(a, listingId, makeWallet('p2wpkh', 'cl-buyer-a'), makeWallet('p2wpkh', 'cl-dest-a'));
  const two = await r.signedQuote(b, listingId, makeWallet('p2wpkh', 'cl-buyer-b'), makeWallet('p2wpkh', 'cl-dest-b'));
  const before = r.proxy.state.broadcasts;
  const raced = await Promise.all([
    call(a.url, 'POST', `/v1/checkout/quotes/${one.q.id}/complete`, { psbt_hex: one.signed }, one.token),
    call(b.url, 'POST', `/v1/checkout/quotes/${two.q.id}/complete`, { psbt_hex: two.signed }, two.token),
  ]);
  const won = raced.filter((x) => x.status === 200);
  assert.equal(won.length, 1, JSON.stringify(raced.map((x) => x.body)));
  assert.equal(raced.find((x) => x.status !== 200)!.status, 409, JSON.stringify(raced.map((x) => x.body)));
  assert.equal(r.proxy.state.broadcasts - before, 1, 'one broadcast');
  const txid = (raced[0]!.status === 200 ? one : two).q.expected_txid as string;
  const other = (raced[0]!.status === 200 ? two : one).q.expected_txid as string;
  const completedAt = Date.now();
  const pool = await r.mempool();
  assert.ok(pool.includes(txid) && !pool.includes(other));
  const far = streams[raced[0]!.status === 200 ? 1 : 0]!;
  const frame = await until('the sale on the other instance\'s stream', async () => far.frames.find((f) => f.data?.txid === txid), 15_000);
  t.diagnostic(`stream: the sale completed on one instance reached a client of the other in ${Date.now() - completedAt} ms (seq ${frame.id})`);
  for (const x of streams) {
    assert.equal(x.frames.filter((f) => f.data?.txid === txid).length, 1, 'one sale frame per client');
    x.close();
  }

  // SIGKILL of the indexer's leader right after the block that confirms the sale: the other
  // instance takes the role (a new epoch) and the block is applied once.
  const epoch0 = Number((await holder('indexer'))!.epoch);
  await r.mine();
  const mined = (await r.rpc('getblockcount')) as number;
  await a.kill('SIGKILL');
  const killedAt = Date.now();
  const next = await until('another instance to lead the indexer', async () => ((await leads(b)) ? b : (await leads(c)) ? c : undefined), 3 * TICK_MS + 10_000);
  const spare = next === b ? c : b;
  t.diagnostic(`SIGKILL: the other instance led the indexer ${Date.now() - killedAt} ms after the leader died (tick ${TICK_MS} ms)`);
  assert.ok(Number((await holder('indexer'))!.epoch) > epoch0);
  await r.mine();
  const tip = mined + 1;
  const state = () =>
    r.withMarketDb(async (db) => ({
      heights: (await db.selectFrom('indexed_blocks').select('height').orderBy('height').execute()).map((x) => x.height),
      settlements: await db.selectFrom('settlements').select(['txid', 'state', 'confirmed_height']).execute(),
      fills: await db.selectFrom('fills').select(['txid', 'state']).execute(),
    }));
  const s = await until('the new leader to index the tip', async () => {
    const v = await state();
    return v.heights.at(-1) === tip ? v : undefined;
  });
  const first = s.heights[0]!;
  assert.deepEqual(s.heights, Array.from({ length: tip - first + 1 }, (_, i) => first + i), 'every block once, none skipped');
  assert.deepEqual(s.settlements.filter((x) => x.txid === txid), [{ txid, state: 'confirmed', confirmed_height: mined }]);
  assert.deepEqual(s.fills.map((f) => [f.txid, f.state]), [[txid, 'confirmed']], 'one fill, confirmed once');
  assert.equal((await r.salesOf(spare, txid)).length, 1, 'one sale event');

  // SIGTERM: the leader drains, stops and releases; the spare takes every role at once, not at its next tick.
  const t0 = Date.now();
  await next.kill('SIGTERM');
  assert.equal(next.proc.exitCode, 0, `a clean exit:\n${next.output()}`);
  await until('the spare to lead the indexer', async () => ((await leads(spare)) ? true : undefined), TICK_MS * 3);
  const handover = Date.now() - t0;
  assert.ok(await leads(spare, 'recovery'));
  t.diagnostic(`SIGTERM: handed over ${handover} ms after the signal (drain, stop, release)`);
  assert.ok(handover < TICK_MS, `handed over in ${handover} ms, before a follower's tick (${TICK_MS} ms)`);
  await r.mine();
  await until('the spare to index the next block', async () => ((await state()).heights.at(-1) === tip + 1 ? true : undefined));

  // The endpoint got every event of the seller's feed (listed, sold) among its 2xx answers, each
  // (id, seq) once, in log order, each signed with its secret, whichever instance dispatched.
  // One session for the polls below (each sign-in spends the sign-in budget).
  const feedToken = await r.signIn(spare, seller);
  const feed = async () =>
    ((await call(spare.url, 'GET', `/v1/address/${seller.address}/events?limit=50`, undefined, feedToken)).body.result as Array<{ event_id: string }>)
      .map((e) => e.event_id)
      .sort();
  const delivered = () => receiver.at('/hook').filter((x) => x.answered === 200);
  const want = await until('every event of the feed delivered', async () => {
    const ids = await feed();
    return ids.length > 0 && JSON.stringify([...new Set(delivered().map((x) => x.id))].sort()) === JSON.stringify(ids) ? ids : undefined;
    // A dispatcher killed while it held the endpoint's lease no longer blocks it: the next leader takes the lease at once (webhook-failover.test.ts).
  }, 15_000);
  const ok = delivered();
  // An event that comes back under its id with a higher seq (the sale confirmed) is news and is
  // delivered again; the same (id, seq) never twice.
  const keys = ok.map((x) => `${x.id}@${x.body.seq}`);
  assert.equal(new Set(keys).size, keys.length, `each (id, seq) once: ${keys.join(' ')}`);
  assert.deepEqual([...new Set(ok.map((x) => x.id))].sort(), want);
  assert.deepEqual(receiver.at('/hook').slice(0, 3).map((x) => x.answered), [500, 500, 500]);
  assert.ok(ok.every((x) => x.verifiedBy.length === 1), 'every delivery verifies with the secret');
  const seqs = ok.map((x) => x.body.seq);
  assert.deepEqual(seqs, [...seqs].sort((p, q) => p - q), 'in log order');
  t.diagnostic(`webhooks: ${want.length} events delivered once each after ${receiver.at('/hook').length - ok.length} failed attempts`);
});
