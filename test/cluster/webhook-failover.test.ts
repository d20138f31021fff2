/**
 * #17: the webhook dispatcher's leader killed (SIGKILL) while it holds an endpoint's lease, its
 * attempt in flight and unanswered. The next leader (a newer epoch of the webhook role) takes the
 * lease over at once instead of waiting WEBHOOK_TIMEOUT_MS + 30 s for it to run out, sends that
 * event again, and goes on: every webhook-id is acknowledged exactly once, none is skipped, and
 * the delivery log holds only the recorded attempts. Real processes (test/helpers/crash.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWallet } from '../helpers/wallets.js';
import { backend } from '../helpers/store.js';
import { call, until, type Market } from '../helpers/crash.js';
import { clusterRig } from '../helpers/cluster.js';

const SKIP = backend !== 'postgres' ? 'a leader change needs PostgreSQL (TEST_BACKEND=postgres with TEST_POSTGRES_URL)' : false;
const TICK_MS = 1_000;

const cluster = clusterRig('wf');
const { receiver } = cluster;

void test('SIGKILL of the webhook leader mid-attempt: the next leader delivers within seconds, every webhook-id acknowledged once', { timeout: 180_000, skip: SKIP }, async (t) => {
  const { rig: r, markets: [a, b], holder, leads: leadsRole } = await cluster.start({ instances: 2, tickMs: TICK_MS });
  const roleRow = async () => (await holder('webhook-dispatcher'))!;
  const leads = (m: Market) => leadsRole(m, 'webhook-dispatcher');
  assert.ok(await leads(a), 'the first instance up dispatches webhooks');
  const epoch0 = Number((await roleRow()).epoch);

  // The seller's endpoint never answers the first attempt: the leader is mid-send, holding the lease.
  const seller = makeWallet('p2wpkh', 'wf-seller');
  await receiver.start();
  receiver.script('/hook', ['hang']);
  const token = await r.signIn(b, seller);
  const hook = await call(b.url, 'POST', `/v1/address/${seller.address}/webhooks`, { url: `${receiver.base}/hook` }, token);
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  receiver.secrets.set('/hook', [hook.body.result.secret as string]);
  // Two listings; each delisting writes one event to the seller's owner feed.
  const first = await r.listedUnit(b, seller, 27_000);
  const second = await r.listedUnit(b, seller, 28_000);
  const delist = async (id: string) => assert.equal((await call(b.url, 'POST', `/v1/listings/${id}/delist`, undefined, token)).status, 200);
  await delist(first.listingId);
  await until('the leader to send the delisting', async () => (receiver.at('/hook').length > 0 ? true : undefined));
  const lease = await r.withMarketDb(async (db) => db.selectFrom('webhook_endpoints').select(['lease_holder', 'lease_until', 'lease_epoch']).executeTakeFirstOrThrow());
  assert.equal(Number(lease.lease_epoch), epoch0, 'the lease is held under the leader\'s epoch');
  assert.ok(Number(lease.lease_until) > Date.now() + 20_000, 'a lease that would block the endpoint for a while if waited out');

  await a.kill('SIGKILL');
  const killedAt = Date.now();
  const acknowledged = () => receiver.at('/hook').filter((x) => x.answered === 200);
  await until('the next leader to deliver the delisting', async () => (acknowledged().length > 0 ? true : undefined), 3 * TICK_MS + 5_000);
  const took = Date.now() - killedAt;
  t.diagnostic(`webhook failover: the in-flight event was delivered by the next leader ${took} ms after SIGKILL (tick ${TICK_MS} ms)`);
  assert.ok(await leads(b), `B leads the webhook role: ${JSON.stringify(await roleRow())}`);
  assert.ok(Number((await roleRow()).epoch) > epoch0);

  // The next event goes out from the new leader as well.
  await delist(second.listingId);
  const feed = async () =>
    ((await call(b.url, 'GET', `/v1/address/${seller.address}/events?limit=50`, undefined, token)).body.result as Array<{ event_id: string }>).map((e) => e.event_id).sort();
  const want = await until('every event of the feed acknowledged', async () => {
    const ids = await feed();
    return ids.length >= 2 && JSON.stringify([...new Set(acknowledged().map((x) => x.id))].sort()) === JSON.stringify(ids) ? ids : undefined;
  }, 15_000).catch(async (e: unknown) => {
    throw new Error(`${String(e)}; feed ${JSON.stringify(await feed())}; received ${JSON.stringify(receiver.at('/hook').map((x) => [x.id, x.answered]))}`);
  });
  const ok = acknowledged();
  assert.equal(ok.length, want.length, `each webhook-id acknowledged once: ${ok.map((x) => x.id).join(' ')}`);
  assert.equal(receiver.at('/hook')[0]!.id, ok[0]!.id, 'the event in flight at the kill was sent again, not skipped');
  assert.ok(ok.every((x) => x.verifiedBy.length === 1));
  // The record of an attempt commits just after its 2xx reached the receiver: wait for the log to hold every event.
  const deliveries = async () =>
    (await call(b.url, 'GET', `/v1/address/${seller.address}/webhooks/${hook.body.result.id}/deliveries?limit=50`, undefined, token)).body.result as Array<{ outcome: string; event_id: string }>;
  const log = await until('every acknowledged event in the delivery log', async () => {
    const rows = await deliveries();
    return new Set(rows.map((d) => d.event_id)).size >= want.length ? rows : undefined;
  }, 10_000);
  assert.deepEqual(log.map((d) => d.outcome), want.map(() => 'succeeded'), `the killed attempt was never recorded; each event logged once: ${JSON.stringify(log)}`);
});
