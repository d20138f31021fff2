/**
 * Webhooks end to end on one app (both backends): registration and its URL rules, owner-only
 * access, and the dispatcher reading the ordered event log (real delists of real listings on the
 * devnet write the owner events) against a real receiver on 127.0.0.1 that fails three times (500,
 * 429 with Retry-After, a timeout) then recovers: every event arrives exactly once per
 * webhook-id among the 2xx answers, in log order, each signature checked by the reference
 * verifier. Also 410 disabling, secret rotation (two signatures during the grace), replay,
 * disabling after the configured hours of failure, and the delivery-time address guard.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import dns from 'node:dns';
import { setTimeout as sleep } from 'node:timers/promises';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { listUnit, newSeller, type Seller } from '../helpers/listing.js';
import { ManualClock } from '../../src/clock.js';
import { eventLogRetentionJob } from '../../src/events/retention-job.js';
import { dispatcherOf } from '../../src/modules/webhooks/manifest.js';
import { eventLogSource } from '../../src/modules/webhooks/event-log-source.js';
import type { WebhookDispatcher } from '../../src/modules/webhooks/dispatcher.js';
import { WebhookSender } from '../../src/modules/webhooks/sender.js';
import { FencedOut, lease, takeEpoch } from '../../src/cluster/fence.js';
import { Receiver } from './receiver.js';
import { appendEvent } from '../../src/events/append.js';

const receiver = new Receiver();
let m: Market;
let seller: Seller['w'];
let token = '';
/** The seller's attached unit: listed again and delisted, it writes one owner event (listing_delisted) to the log each time, no block needed. */
let unit: { seller: Seller; utxo: { txid: string; vout: number } };
let price = 20_000;
const source = () => eventLogSource(m.ctx);
let strangerToken = '';
let dispatcher: WebhookDispatcher;
let otherListing: { id: string; token: string };
let otherUnit: typeof unit;
const base = () => `/v1/address/${seller.address}/webhooks`;

/** Registers `path` on the receiver and tells the receiver its secret. */
async function register(path: string): Promise<{ id: string; secret: string }> {
  const r = await m.call('POST', base(), token, { url: `${receiver.base}${path}` });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  receiver.secrets.set(path, [r.body.result.secret as string]);
  return r.body.result as { id: string; secret: string };
}

/** Lists the seller's unit again and delists it: one listing_delisted in the seller's owner feed. Returns the listing id. */
async function delistNext(): Promise<string> {
  const { id } = await listUnit(m, unit.seller, ++price, { utxo: unit.utxo });
  const r = await m.call('POST', `/v1/listings/${id}/delist`, token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return id;
}

const deliveries = async (id: string) => {
  const r = await m.call('GET', `${base()}/${id}/deliveries?limit=100`, token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.result as Array<Record<string, any>>).reverse();
};

before(async () => {
  await receiver.start();
  m = await openMarket({ WEBHOOK_TIMEOUT_MS: '400' });
  // Receivers refuse a webhook-timestamp far from their clock: the market's clock is the wall's here.
  m.clock.set(Date.now());
  const s = await newSeller(m, 'p2wpkh', 'webhooks-seller');
  seller = s.w;
  token = s.token;
  const first = await listUnit(m, s, price);
  unit = { seller: s, utxo: { txid: first.utxo_txid, vout: first.utxo_vout } };
  assert.equal((await m.call('POST', `/v1/listings/${first.id}/delist`, token)).status, 200);
  const other = await newSeller(m, 'p2tr', 'webhooks-other');
  const theirs = await listUnit(m, other, 30_000);
  otherListing = { id: theirs.id, token: other.token };
  otherUnit = { seller: other, utxo: { txid: theirs.utxo_txid, vout: theirs.utxo_vout } };
  strangerToken = await m.signIn(makeWallet('p2tr', 'webhooks-stranger'));
  // Immediate retries (no jitter): the story below runs in milliseconds; Retry-After still holds.
  dispatcher = dispatcherOf(m.ctx, source(), { policy: { scheduleMs: [0], jitter: 0, random: () => 0 } });
});
after(async () => {
  await m.close();
  await receiver.close();
});

void describe('registration', () => {
  void it('refuses non-public and malformed URLs with a reason, accepts loopback on the devnet', async () => {
    const refused: Array<[string, string]> = [
      ['http://10.0.0.7/hook', 'forbidden_address'],
      ['https://192.168.1.20/hook', 'forbidden_address'],
      ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
      ['https://[fd00::5]/hook', 'forbidden_address'],
      ['ftp://example.com/hook', 'scheme'],
      ['https://u:p@example.com/hook', 'credentials'],
      ['https://nothing-here.invalid/hook', 'unresolvable'],
    ];
    for (const [url, reason] of refused) {
      const r = await m.call('POST', base(), token, { url });
      assert.deepEqual([r.status, r.body.code, r.body.field, r.body.reason], [400, 'invalid_request', 'body.url', reason], `${url}: ${JSON.stringify(r.body)}`);
    }
    const ok = await m.call('POST', base(), token, { url: `${receiver.base}/registration` });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.match(ok.body.result.secret, /^whsec_/);
    assert.equal(ok.body.result.status, 'active');
    const list = await m.call('GET', base(), token);
    assert.deepEqual(list.body.result.map((e: { id: string }) => e.id), [ok.body.result.id]);
    assert.equal(list.body.result[0].secret, undefined, 'the secret is shown only when made');
    const del = await m.call('DELETE', `${base()}/${ok.body.result.id}`, token);
    assert.deepEqual(del.body.result, { id: ok.body.result.id, deleted: true });
    assert.equal((await m.call('GET', base(), token)).body.result.length, 0);
  });

  void it('a host whose lookup does not answer never holds the registration: it is accepted and judged at delivery (it once held the request for the resolver\'s 5 s)', async () => {
    // A resolver that never answers (the registration's lookup is Node's dns.promises.lookup).
    const real = dns.promises.lookup;
    let asked = 0;
    (dns.promises as { lookup: unknown }).lookup = () => {
      asked++;
      return new Promise(() => {});
    };
    try {
      const r = await Promise.race([
        m.call('POST', base(), token, { url: 'https://slow-resolver.example/hook' }),
        sleep(4_000).then(() => ({ status: 0, body: { error: 'no answer within 4 s' } })),
      ]);
      assert.equal(asked, 1);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal((await m.call('DELETE', `${base()}/${(r.body as any).result.id}`, token)).status, 200);
    } finally {
      (dns.promises as { lookup: unknown }).lookup = real;
    }
  });

  void it("an owner sees only its own endpoints: 403 for another's address, 404 for another's id", async () => {
    const mine = await register('/owner-check');
    assert.equal((await m.call('GET', base(), strangerToken)).status, 403);
    assert.equal((await m.call('POST', base(), strangerToken, { url: `${receiver.base}/x` })).status, 403);
    assert.equal((await m.call('GET', base(), null)).status, 401);
    const stranger = makeWallet('p2tr', 'webhooks-stranger');
    for (const [method, suffix] of [['DELETE', ''], ['POST', '/secret'], ['GET', '/deliveries']] as const) {
      const r = await m.call(method, `/v1/address/${stranger.address}/webhooks/${mine.id}${suffix}`, strangerToken);
      assert.deepEqual([r.status, r.body.code], [404, 'not_found'], `${method} ${suffix}`);
    }
    assert.equal((await m.call('DELETE', `${base()}/${mine.id}`, token)).status, 200);
  });
});

void describe('registration limit', () => {
  void it('twelve racing registrations: exactly ten endpoints, two refused', async () => {
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => m.call('POST', base(), token, { url: `${receiver.base}/race-${i}` })));
    assert.deepEqual(replies.map((r) => r.status).sort(), [...Array(10).fill(201), 409, 409]);
    for (const r of replies.filter((x) => x.status === 409)) assert.deepEqual([r.body.code, r.body.reason], ['state_changed', 'endpoint_limit']);
    const mine = (await m.call('GET', base(), token)).body.result as Array<{ id: string }>;
    assert.equal(mine.length, 10);
    for (const e of mine) assert.equal((await m.call('DELETE', `${base()}/${e.id}`, token)).status, 200);
  });
});

void describe('delivery', () => {
  let flaky: { id: string; secret: string };
  let gone: { id: string };
  const delisted: string[] = [];

  void it('fails three times (500, 429 Retry-After, timeout), then delivers every event once, in order, signed', async () => {
    flaky = await register('/flaky');
    gone = await register('/gone');
    receiver.script('/flaky', [{ status: 500 }, { status: 429, headers: { 'retry-after': '2' } }, 'hang']);
    receiver.script('/gone', [{ status: 410 }]);
    for (let i = 0; i < 3; i++) delisted.push(await delistNext());
    // Someone else's event: never sent to this seller's endpoints.
    assert.equal((await m.call('POST', `/v1/listings/${otherListing.id}/delist`, otherListing.token)).status, 200);

    await dispatcher.run(); // 500; 410 disables /gone
    await dispatcher.run(); // 429, Retry-After 2 s
    const waiting = await m.call('GET', base(), token);
    const f = waiting.body.result.find((e: { id: string }) => e.id === flaky.id);
    assert.equal(f.retry.attempts, 2);
    assert.ok(f.retry.next_attempt_at >= Math.floor(m.clock.now() / 1000) + 1, JSON.stringify(f.retry));
    await dispatcher.run(); // Retry-After not over: nothing sent
    assert.equal(receiver.at('/flaky').length, 2);
    m.clock.advance(2_000);
    await dispatcher.run(); // times out (400 ms)
    await dispatcher.run(); // recovers: the three events, in order

    const got = receiver.at('/flaky');
    assert.deepEqual(got.map((r) => r.answered), [500, 429, 'hang', 200, 200, 200]);
    for (const r of got) assert.deepEqual(r.verifiedBy, [0], `signature of ${r.id}`);
    const ok = got.filter((r) => r.answered === 200);
    assert.deepEqual(ok.map((r) => r.body.data.listing_id), delisted, 'each event once among the 2xx, in log order');
    assert.deepEqual(ok.map((r) => r.body.type), ['listing_delisted', 'listing_delisted', 'listing_delisted']);
    assert.equal(new Set(ok.map((r) => r.id)).size, 3);
    assert.deepEqual(got.slice(0, 4).map((r) => r.id), Array(4).fill(ok[0]!.id), 'the failing event is retried alone, same webhook-id');
    for (const r of ok) assert.equal(r.id, r.body.data.event_id);
    const seqs = ok.map((r) => r.body.seq);
    assert.ok(seqs[0]! < seqs[1]! && seqs[1]! < seqs[2]!, `seq ascending: ${seqs.join(',')}`);
    assert.equal(ok[0]!.body.address, seller.address);
    // The owner feed shows the same events under the same ids.
    const feed = await m.call('GET', `/v1/address/${seller.address}/events?limit=10`, token);
    for (const r of ok) assert.ok(feed.body.result.some((e: { event_id: string }) => e.event_id === r.id), r.id);

    const log = await deliveries(flaky.id);
    assert.deepEqual(log.map((d) => [d.outcome, d.response_status, d.attempt]), [
      ['failed', 500, 1],
      ['failed', 429, 2],
      ['timeout', null, 3],
      ['succeeded', 200, 4],
      ['succeeded', 200, 1],
      ['succeeded', 200, 1],
    ]);
    assert.ok(log.every((d) => typeof d.duration_ms === 'number'));
    const after = (await m.call('GET', base(), token)).body.result as Array<Record<string, any>>;
    assert.deepEqual(after.find((e) => e.id === flaky.id)!.retry, null);
    assert.equal(after.find((e) => e.id === flaky.id)!.last_delivered_seq, seqs[2]);
    const g = after.find((e) => e.id === gone.id)!;
    assert.deepEqual([g.status, g.disabled_reason], ['disabled', 'gone']);
    assert.deepEqual((await deliveries(gone.id)).map((d) => [d.outcome, d.response_status]), [['gone', 410]]);
    assert.equal(receiver.at('/gone').length, 1, 'nothing more after 410');

    const metrics = (await m.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /market_webhook_deliveries_total\{outcome="succeeded"\} 3/);
    assert.match(metrics, /market_webhook_deliveries_total\{outcome="gone"\} 1/);
  });

  void it('after a rotation both secrets sign until the grace ends; the old one then stops', async () => {
    const r = await m.call('POST', `${base()}/${flaky.id}/secret`, token);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const fresh = r.body.result.secret as string;
    assert.notEqual(fresh, flaky.secret);
    assert.ok(r.body.result.previous_secret_expires_at > Math.floor(m.clock.now() / 1000));
    receiver.secrets.set('/flaky', [flaky.secret, fresh]);
    await delistNext();
    await dispatcher.run();
    const during = receiver.at('/flaky').at(-1)!;
    assert.equal(during.signatures.length, 2);
    assert.deepEqual(during.verifiedBy, [0, 1], 'old and new secret both verify');

    const later = new ManualClock(m.clock.now() + 24 * 3600_000 + 1);
    const d2 = dispatcherOf(m.ctx, source(), { policy: { scheduleMs: [0], jitter: 0, random: () => 0 }, clock: later });
    await delistNext();
    await d2.run();
    const afterGrace = receiver.at('/flaky').at(-1)!;
    assert.equal(afterGrace.signatures.length, 1);
    // Its timestamp is a day ahead of the receiver's clock, so it is checked here without the tolerance.
    const { sign } = await import('../../src/modules/webhooks/signing.js');
    assert.equal(afterGrace.signatures[0], sign(fresh, afterGrace.id, Math.floor(later.now() / 1000), afterGrace.raw));
    flaky.secret = fresh;
    receiver.secrets.set('/flaky', [fresh]);
  });

  void it('replays a logged delivery: same body and webhook-id, fresh signature, its own log row', async () => {
    const first = (await deliveries(flaky.id)).find((d) => d.outcome === 'succeeded')!;
    const r = await m.call('POST', `${base()}/${flaky.id}/deliveries/${first.id}/replay`, token);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.deepEqual([r.body.result.outcome, r.body.result.replay_of], ['queued', first.id]);
    const again = await m.call('POST', `${base()}/${flaky.id}/deliveries/${r.body.result.id}/replay`, token);
    assert.deepEqual([again.status, again.body.code], [409, 'state_changed']);
    const before = receiver.at('/flaky').length;
    await dispatcher.run();
    const sent = receiver.at('/flaky').slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.id, first.event_id);
    assert.equal(sent[0]!.raw, receiver.at('/flaky').find((x) => x.id === first.event_id && x.answered === 200)!.raw);
    assert.deepEqual(sent[0]!.verifiedBy, [0]);
    const row = (await deliveries(flaky.id)).find((d) => d.id === r.body.result.id)!;
    assert.deepEqual([row.outcome, row.response_status, row.replay_of], ['succeeded', 200, first.id]);
    const missing = await m.call('POST', `${base()}/${flaky.id}/deliveries/wd_nothing/replay`, token);
    assert.equal(missing.status, 404);
  });

  void it('two dispatchers at once: one holds the endpoint, every event is sent exactly once, in order', async () => {
    const sentBefore = receiver.at('/flaky').length;
    const logBefore = (await deliveries(flaky.id)).length;
    const ids = [await delistNext(), await delistNext()];
    const rival = dispatcherOf(m.ctx, source(), { policy: { scheduleMs: [0], jitter: 0, random: () => 0 } });
    await Promise.all([dispatcher.run(), rival.run()]);
    await dispatcher.run();
    const sent = receiver.at('/flaky').slice(sentBefore);
    assert.deepEqual(sent.map((r) => r.body.data.listing_id), ids, 'each event once, in log order');
    for (const r of sent) assert.deepEqual(r.verifiedBy, [0]);
    const ep = (await m.call('GET', base(), token)).body.result.find((e: { id: string }) => e.id === flaky.id);
    assert.equal(ep.last_delivered_seq, sent[1]!.body.seq);
    assert.equal((await deliveries(flaky.id)).length - logBefore, 2, 'one log row per attempt');
    // A replay queued once is taken by one of two racing dispatchers.
    const first = (await deliveries(flaky.id)).at(-1)!;
    assert.equal((await m.call('POST', `${base()}/${flaky.id}/deliveries/${first.id}/replay`, token)).status, 202);
    await Promise.all([dispatcher.run(), rival.run()]);
    assert.equal(receiver.at('/flaky').length - sentBefore, 3, 'the replay was sent once');
  });

  void it('an event the log carries again under the same id with a higher seq (its subject changed) is delivered again: news, not a duplicate', async () => {
    const sentBefore = receiver.at('/flaky').length;
    // What a sale writes: listing_filled while the checkout is pending, then again under the same id once the listing is sold.
    const row = (status: string) => ({ event_id: 'ev_restated', kind: 'listing_filled', at: Math.floor(m.clock.now() / 1000), role: 'seller', status, asset: 'A1', price_sats: 20_000, txid: 'ab'.repeat(32), listing_id: 'lst_x', offer_id: null, utxo_txid: null, utxo_vout: null, expires_at: null, data: null });
    for (const status of ['pending', 'sold']) {
      await m.ctx.store.db.transaction().execute(async (tx) => appendEvent(tx, { event_id: 'ev_restated', feed: 'owner', address: seller.address, kind: 'listing_filled', at: row(status).at, row: row(status) }));
    }
    await dispatcher.run();
    const sent = receiver.at('/flaky').slice(sentBefore);
    assert.deepEqual(sent.map((r) => [r.id, r.body.data.status]), [['ev_restated', 'pending'], ['ev_restated', 'sold']], 'both, in log order');
    assert.ok(sent[1]!.body.seq > sent[0]!.body.seq, 'the second under a higher seq');
    for (const r of sent) assert.deepEqual(r.verifiedBy, [0]);
  });

  void it('an endpoint failing for WEBHOOK_DISABLE_AFTER_HOURS is disabled', async () => {
    const down = await register('/down');
    receiver.script('/down', Array.from({ length: 5 }, () => ({ status: 503 })));
    const clock = new ManualClock(m.clock.now());
    const d = dispatcherOf(m.ctx, source(), { policy: { scheduleMs: [0], jitter: 0, random: () => 0 }, clock });
    await delistNext();
    await d.run();
    clock.advance(71 * 3600_000);
    await d.run();
    let ep = (await m.call('GET', base(), token)).body.result.find((e: { id: string }) => e.id === down.id);
    assert.equal(ep.status, 'active');
    clock.advance(1 * 3600_000);
    await d.run();
    ep = (await m.call('GET', base(), token)).body.result.find((e: { id: string }) => e.id === down.id);
    assert.deepEqual([ep.status, ep.disabled_reason], ['disabled', 'failing']);
    assert.equal(receiver.at('/down').length, 3);
    const r = await m.call('POST', `${base()}/${down.id}/deliveries/${(await deliveries(down.id))[0]!.id}/replay`, token);
    assert.deepEqual([r.status, r.body.code], [409, 'state_changed']);
  });

  void it("a quiet owner's endpoint keeps delivering after the log's retention pruned past its cursor", async () => {
    // Others trade on (a public event after the seller's last), then a week passes and the log is pruned.
    await listUnit(m, otherUnit.seller, 31_000, { utxo: otherUnit.utxo });
    await eventLogRetentionJob(m.ctx.store.db, new ManualClock(m.clock.now() + 8 * 86_400_000), 7).run();
    const before = receiver.at('/flaky').length;
    const id = await delistNext();
    await dispatcher.run();
    assert.deepEqual(receiver.at('/flaky').slice(before).map((r) => [r.body.data.listing_id, r.answered]), [[id, 200]]);
  });

  void it('the delivery log keeps 30 days; the deliveries counter keeps counting', async () => {
    const scrape = async () => (await m.app.inject({ method: 'GET', url: '/metrics' })).body.match(/market_webhook_deliveries_total\{outcome="succeeded"\} (\d+)/)?.[1];
    const counted = await scrape();
    assert.ok(Number(counted) >= 8, String(counted));
    assert.ok((await deliveries(flaky.id)).length > 0);
    // 30 days after the newest row (a dispatcher above ran a day ahead).
    await dispatcherOf(m.ctx, source(), { clock: new ManualClock(m.clock.now() + 32 * 86_400_000) }).run();
    assert.deepEqual(await deliveries(flaky.id), []);
    assert.equal(await scrape(), counted);
  });

  void it('refuses at delivery a name that resolves to a forbidden address (DNS rebinding), and loopback literals', async () => {
    const prod = new WebhookSender({ allowHttp: true, allowLoopback: false }, { timeoutMs: 1_000, maxResponseBytes: 1024, userAgent: 't' });
    const port = new URL(receiver.base).port;
    const before = receiver.received.length;
    for (const url of [`http://localhost:${port}/rebind`, `http://127.0.0.1:${port}/rebind`, `http://[::ffff:127.0.0.1]:${port}/rebind`]) {
      const r = await prod.send(url, '{}', {}, Date.now());
      assert.equal(r.outcome, 'refused_address', `${url}: ${JSON.stringify(r)}`);
    }
    assert.equal(receiver.received.length, before, 'nothing reached the receiver');
    await prod.close();
  });

  void it('never follows a redirect, and reads a bounded part of a huge answer', async () => {
    const sender = new WebhookSender({ allowHttp: true, allowLoopback: true }, { timeoutMs: 2_000, maxResponseBytes: 1024, userAgent: 't' });
    receiver.script('/moved', [{ status: 302, headers: { location: `${receiver.base}/elsewhere` } }]);
    const moved = await sender.send(`${receiver.base}/moved`, '{}', {}, Date.now());
    assert.deepEqual([moved.outcome, moved.status], ['failed', 302]);
    assert.equal(receiver.at('/elsewhere').length, 0);
    receiver.script('/huge', [{ status: 200, body: 'x'.repeat(8 * 1024 * 1024) }]);
    const huge = await sender.send(`${receiver.base}/huge`, '{}', {}, Date.now());
    assert.deepEqual([huge.outcome, huge.status], ['succeeded', 200]);
    await sender.close();
  });

  // Last: the leases below carry epochs, and a run outside the cluster (epoch 0) defers to them.
  void it("a new leader of the webhook role takes over the lease of one that died mid-attempt at once; the old leader's record is fenced out", async () => {
    const leader = async (holder: string) => {
      const taken = await m.ctx.store.db.executeQuery(takeEpoch(m.ctx.store.db, 'webhook-dispatcher', holder, Date.now()));
      return lease('webhook-dispatcher', Number(taken.rows[0]!.epoch));
    };
    const ep = await register('/leader');
    receiver.script('/leader', ['hang']);
    const first = await leader('old');
    const old = dispatcherOf(m.ctx, source(), { policy: { scheduleMs: [0], jitter: 0, random: () => 0 } });
    const id = await delistNext();
    const oldRun = old.run(first);
    const deadline = Date.now() + 5_000;
    while (receiver.at('/leader').length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(receiver.at('/leader').length, 1, 'the old leader is sending');
    // Its lease runs WEBHOOK_TIMEOUT_MS + 30 s; the next leader does not wait for it.
    const second = await leader('new');
    const newer = dispatcherOf(m.ctx, source(), { policy: { scheduleMs: [0], jitter: 0, random: () => 0 } });
    await newer.run(second);
    await assert.rejects(oldRun, FencedOut, 'the old leader\'s record of its attempt is fenced out');
    const got = receiver.at('/leader');
    assert.deepEqual(got.map((r) => [r.body.data.listing_id, r.answered]), [[id, 'hang'], [id, 200]]);
    assert.equal(got[0]!.id, got[1]!.id, 'the same webhook-id, acknowledged once');
    assert.deepEqual((await deliveries(ep.id)).map((d) => [d.outcome, d.response_status]), [['succeeded', 200]], 'only the recorded attempt is logged');
    // A stale leader can no longer take the endpoint: the next event goes out once, from the new leader.
    const next = await delistNext();
    await assert.rejects(old.run(first), FencedOut, 'the stale leader\'s renewal is fenced out');
    assert.equal(receiver.at('/leader').length, 2, 'the stale leader sent nothing');
    await newer.run(second);
    assert.deepEqual(receiver.at('/leader').slice(2).map((r) => [r.body.data.listing_id, r.answered]), [[next, 200]]);
  });
});
