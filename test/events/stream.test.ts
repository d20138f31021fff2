/**
 * The push stream over real HTTP (the app listening on 127.0.0.1): a public and an owner client
 * that disconnect at random points over a run of real trades on the devnet and reconnect with
 * Last-Event-ID receive every log entry of their scope exactly once, in seq order, as the feed
 * renders it; heartbeats; 410 resync_required for a pruned position; the per-IP and per-address
 * limits (429); a client that stops reading is dropped once its pending output passes the bound.
 * On PostgreSQL, a commit through another store (another instance) wakes the notifier at once.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { makeWallet } from '../helpers/wallets.js';
import { openSse, type SseClient } from '../helpers/sse.js';
import { backend } from '../helpers/store.js';
import { appendEvent } from '../../src/events/append.js';
import { EventLogReader } from '../../src/events/log-reader.js';
import { eventLogRetentionJob } from '../../src/events/retention-job.js';
import { EventsService } from '../../src/modules/events/service.js';
import { AssetLongnames } from '../../src/modules/events/asset-longnames.js';

let m: Market;
let base: string;
before(async () => {
  m = await openMarket({ STREAM_HEARTBEAT_MS: '150', STREAM_MAX_PER_IP: '6', STREAM_MAX_PER_ADDRESS: '2', STREAM_MAX_BUFFER_BYTES: '65536' });
  await m.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = m.app.server.address() as net.AddressInfo;
  base = `http://127.0.0.1:${addr.port}`;
});
after(async () => m.close());

const reader = () => new EventLogReader(m.ctx.store.db);
const until = async (cond: () => boolean | Promise<boolean>, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
};

/**
^ * Follows a stream, dropping the connection after a random 1-3 frames (or 100-400 ms) and
 * reconnecting with Last-Event-ID; collects every frame received.
 */
function follower(path: string, start: number, headers: Record<string, string> = {}) {
  const got: Array<{ seq: number; event: string; data: any }> = [];
  let last = start;
  let stop = false;
  let reconnects = 0;
  const run = (async () => {
    while (!stop) {
      const budget = 1 + Math.floor(Math.random() * 3);
      let n = 0;
      const c: SseClient = await openSse(`${base}${path}`, { ...headers, 'last-event-id': String(last) }, (f, client) => {
        const seq = Number(f.id);
        got.push({ seq, event: f.event, data: f.data });
        last = seq;
        if (++n >= budget) client.close();
      });
      assert.equal(c.status, 200, JSON.stringify(c.body));
      const timer = setTimeout(() => c.close(), 100 + Math.random() * 300);
      await c.closed;
      clearTimeout(timer);
      reconnects++;
    }
  })();
  return {
    got,
    reconnects: () => reconnects,
    last: () => last,
    async stop() {
      stop = true;
      await run;
    },
  };
}

void test('random disconnects over real trades: every entry exactly once, in order, as the feeds render it', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'stream', 3);
  const start = (await reader().head()).last;
  const pub = follower('/v1/stream/events', start);
  const own = follower(`/v1/address/${seller.w.address}/stream`, start, { 'x-session-token': seller.token });

  // A run of real trades: three listings, two bought by two buyers, mined and confirmed, one delisted.
  const listings = [];
  for (const price of [21_000, 22_000, 23_000]) listings.push(await listUnit(m, seller, price));
  await m.sync();
  for (const [i, l] of listings.slice(0, 2).entries()) {
    const b = await newBuyer(m, i ? 'p2tr' : 'p2wpkh', `stream-${i}`);
    m.clock.advance(1_000);
    const q = await quoteOk(m, b, { lines: [{ listing_id: l.id }], fee_rate: 2 });
    assert.equal((await complete(m, b, q.id, signQuote(q, b.w))).status, 200);
  }
  m.clock.advance(1_000);
  await m.mine();
  await m.sync();
  assert.equal((await m.call('POST', `/v1/listings/${listings[2]!.id}/delist`, seller.token)).status, 200);

  const all = await reader().all(start, 10_000);
  const publicSeqs = all.filter((e) => e.feed === 'public').map((e) => e.seq);
  const ownerSeqs = all.filter((e) => e.feed === 'owner' && e.address === seller.w.address).map((e) => e.seq);
  assert.ok(publicSeqs.length >= 7 && ownerSeqs.length >= 5, `the trades made events (${publicSeqs.length} public, ${ownerSeqs.length} owner)`);
  await until(() => pub.last() >= publicSeqs.at(-1)! && own.last() >= ownerSeqs.at(-1)!, `the followers to reach the head (${JSON.stringify({ pub: pub.got.map((f) => f.seq), own: own.got.map((f) => f.seq), publicSeqs, ownerSeqs })})`);
  await Promise.all([pub.stop(), own.stop()]);

  assert.ok(pub.reconnects() >= 3 && own.reconnects() >= 3, `they did reconnect (${pub.reconnects()}, ${own.reconnects()})`);
  assert.deepEqual(pub.got.map((f) => f.seq), publicSeqs, 'public: every entry once, in order');
  assert.deepEqual(own.got.map((f) => f.seq), ownerSeqs, 'owner: every entry once, in order');
  const service = new EventsService(m.ctx.store.db, new AssetLongnames(m.ctx.chain.counterparty));
  const rendered = await service.renderPublic(all.filter((e) => e.feed === 'public'));
  assert.deepEqual(pub.got.map((f) => f.data), rendered, 'frames carry the event as the feed renders it, with seq and event_id');
  assert.deepEqual(pub.got.map((f) => f.event), rendered.map((r) => r.kind), 'event: <kind>');
  for (const k of ['listed', 'sale', 'delisted']) assert.ok(pub.got.some((f) => f.event === k), `public stream has ${k}`);
  for (const k of ['listing_filled', 'sale_confirmed', 'listing_delisted']) assert.ok(own.got.some((f) => f.event === k), `owner stream has ${k}`);
});

void test('filters, live delivery without reconnecting, heartbeats', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'stream-filter', 2);
  const mine = await openSse(`${base}/v1/stream/events?kind=listings&asset=${seller.asset}`);
  const sales = await openSse(`${base}/v1/stream/events?kind=sales&asset=${seller.asset}`);
  await until(() => mine.comments >= 2, 'heartbeats'); // the open comment, then heartbeats every 150 ms
  const l = await listUnit(m, seller, 26_000);
  await m.sync();
  await until(() => mine.frames.length >= 1, 'the listed frame');
  assert.deepEqual(mine.frames.map((f) => [f.event, f.data.event_id, f.data.asset]), [['listed', mine.frames[0]!.data.event_id, seller.asset]]);
  assert.equal(mine.frames[0]!.data.seq, Number(mine.frames[0]!.id));
  assert.equal(mine.frames[0]!.data.price_sats, 26_000);
  assert.equal(l.id.startsWith('lst_'), true);
  assert.deepEqual(sales.frames, [], 'a kind filter keeps other kinds out');
  mine.close();
  sales.close();
  await Promise.all([mine.closed, sales.closed]);
});

void test('refusals: 410 resync_required for a pruned position, 400 for a bad Last-Event-ID, 401/403 on the owner stream, 429 past the per-IP and per-address limits', async () => {
  const bad = await openSse(`${base}/v1/stream/events`, { 'last-event-id': 'abc' });
  assert.deepEqual([bad.status, bad.body.code], [400, 'invalid_request']);
  const w = makeWallet('p2wpkh', 'stream-limits');
  const token = await m.signIn(w);
  assert.equal((await openSse(`${base}/v1/address/${w.address}/stream`)).status, 401);
  assert.equal((await openSse(`${base}/v1/address/${makeWallet('p2tr', 'stream-other').address}/stream`, { 'x-session-token': token })).status, 403);

  // Per address: two streams; the third is refused until one closes.
  const owned = [await openSse(`${base}/v1/address/${w.address}/stream`, { 'x-session-token': token }), await openSse(`${base}/v1/address/${w.address}/stream`, { 'x-session-token': token })];
  assert.deepEqual(owned.map((c) => c.status), [200, 200]);
  const third = await openSse(`${base}/v1/address/${w.address}/stream`, { 'x-session-token': token });
  assert.deepEqual([third.status, third.body.code, third.headers['retry-after']], [429, 'rate_limited', '5']);
  // Per IP: six in all from 127.0.0.1.
  const more = [];
  for (let i = 0; i < 4; i++) more.push(await openSse(`${base}/v1/stream/events`));
  assert.deepEqual(more.map((c) => c.status), [200, 200, 200, 200]);
  const seventh = await openSse(`${base}/v1/stream/events`);
  assert.deepEqual([seventh.status, seventh.body.code], [429, 'rate_limited']);
  owned[0]!.close();
  await owned[0]!.closed;
  await until(async () => (await m.app.metrics.streamClients.get()).values[0]?.value === 5, 'the gauge to count five');
  const again = await openSse(`${base}/v1/stream/events`);
  assert.equal(again.status, 200, 'a slot freed by a close');
  for (const c of [owned[1]!, ...more, again]) c.close();
  await until(async () => (await m.app.metrics.streamClients.get()).values[0]?.value === 0, 'every stream closed');

  // Pruned: everything recorded before a day from now goes; an old position must resync.
  await m.ctx.store.db.transaction().execute(async (tx) => appendEvent(tx, { event_id: 'ev_to_prune', feed: 'owner', address: w.address, kind: 'test', at: 1, row: {} }));
  await eventLogRetentionJob(m.ctx.store.db, { now: () => Date.now() + 86_400_000 + 1_000 }, 1).run();
  const head = await reader().head();
  const gone = await openSse(`${base}/v1/stream/events`, { 'last-event-id': '0' });
  assert.deepEqual([gone.status, gone.body.code, gone.body.pruned_through], [410, 'resync_required', head.last]);
  const fresh = await openSse(`${base}/v1/stream/events`, { 'last-event-id': String(head.last) });
  assert.equal(fresh.status, 200);
  fresh.close();
});

void test('back-pressure: a client that stops reading is dropped once its pending output passes the bound, never buffered without bound', async () => {
  const w = makeWallet('p2wpkh', 'stream-slow');
  const token = await m.signIn(w);
  const sock = net.connect((m.app.server.address() as net.AddressInfo).port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  sock.write(`GET /v1/address/${w.address}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nx-session-token: ${token}\r\nAccept: text/event-stream\r\n\r\n`);
  await until(async () => (await m.app.metrics.streamClients.get()).values[0]?.value === 1, 'the stream to open');
  // A reader that keeps up, on the same address: it must never be dropped.
  const fast = await openSse(`${base}/v1/address/${w.address}/stream`, { 'x-session-token': token });
  assert.equal(fast.status, 200);
  sock.pause(); // reads nothing more: the kernel buffers fill, then the server's
  const closed = new Promise((r) => sock.once('close', r));
  sock.on('error', () => {});
  // Big events for that address, a few hundred KB per transaction, until the server gives up on the client.
  const pad = 'x'.repeat(4_000);
  let batches = 0;
  while ((await m.app.metrics.streamClients.get()).values[0]?.value !== 1) {
    assert.ok(++batches < 200, 'the slow client was never dropped');
    await m.ctx.store.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 50; i++) appendEvent(tx, { event_id: `ev_slow_${batches}_${i}`, feed: 'owner', address: w.address, kind: 'listing_delisted', at: 1, row: { event_id: `ev_slow_${batches}_${i}`, kind: 'listing_delisted', at: 1, role: 'seller', status: pad, asset: null, price_sats: null, txid: null, listing_id: null, offer_id: null, utxo_txid: null, utxo_vout: null, expires_at: null, data: null } });
    });
    await sleep(20);
  }
  sock.resume();
  await closed;
  assert.ok(batches * 50 * 4_000 < 64 * 1024 * 1024, 'dropped long before memory ran away');
  const { last } = await reader().head();
  await until(() => fast.frames.at(-1)?.id === String(last), 'the fast reader to get every frame');
  assert.equal(fast.frames.length, batches * 50, 'the fast reader got every frame and is still connected');
  fast.close();
});

void test('PostgreSQL: a commit through another store (another instance) wakes this instance\'s notifier at once', { skip: backend !== 'postgres' }, async () => {
  const { openStore } = await import('../../src/store/db.js');
  const { PgNotifier } = await import('../../src/events/notifier.js');
  const { pgUrl } = await import('../helpers/store.js');
  const other = await openStore(pgUrl, { schema: m.storeHandle.schema!, poolSize: 2 });
  const heard: Array<number | null> = [];
  const notifier = new PgNotifier(m.ctx.store);
  notifier.subscribe((last) => heard.push(last));
  await sleep(300); // LISTEN is issued on a connection of its own
  try {
    await other.db.transaction().execute(async (tx) => appendEvent(tx, { event_id: 'ev_other_instance', feed: 'owner', address: 'nobody', kind: 'test', at: 1, row: {} }));
    const { last } = await reader().head();
    await until(() => heard.includes(last), 'the notification from the other store', 5_000);
  } finally {
    await notifier.close();
    await other.close();
  }
});

void test('HEAD on a stream answers at once with the stream\'s headers and no body, and holds no stream slot (it once never answered)', async () => {
  const head = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { method: 'HEAD', headers, signal: AbortSignal.timeout(5_000) });
  // More HEADs than STREAM_MAX_PER_IP (6): none of them holds a slot.
  for (let i = 0; i < 8; i++) {
    const r = await head('/v1/stream/events?kind=sales');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal((await r.arrayBuffer()).byteLength, 0);
  }
  const c = await openSse(`${base}/v1/stream/events`, {}, () => {});
  assert.equal(c.status, 200, 'a GET still opens: the HEADs took no slot');
  c.close();
  await c.closed;
  // The same refusals as GET, without a body.
  assert.equal((await head('/v1/stream/events', { 'last-event-id': 'x' })).status, 400);
  const w = makeWallet('p2wpkh', 'stream-head-owner');
  assert.equal((await head(`/v1/address/${w.address}/stream`)).status, 401);
  const token = await m.signIn(w);
  const own = await head(`/v1/address/${w.address}/stream`, { 'x-session-token': token });
  assert.equal(own.status, 200);
  assert.match(own.headers.get('content-type') ?? '', /^text\/event-stream/);
});
