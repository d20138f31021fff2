/**
 * The client's push side against the real app: webhooks registered, listed, rotated, their
 * delivery log read and replayed, deleted — with real deliveries to a receiver on 127.0.0.1 that
 * the client's WebCrypto verifier accepts exactly when the reference library (`standardwebhooks`)
 * does (a tampered body, a wrong secret and a stale timestamp refused; both secrets during a
 * rotation); and the SSE streams over the app listening on 127.0.0.1 with the platform's fetch: a
 * connection cut after its first frame is resumed with Last-Event-ID, nothing is lost or repeated,
 * the owner stream carries the session's own events, and a pruned position is `resync_required`.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { MarketClient, MarketError, verifyWebhook, type FetchLike, type StreamEvent } from '../../client/src/index.js';
import { dispatcherOf } from '../../src/modules/webhooks/manifest.js';
import { eventLogSource } from '../../src/modules/webhooks/event-log-source.js';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller, type Seller } from '../helpers/listing.js';
import { clientFor, noSleep, recording, wallet } from './harness.js';
import { routeCoverage } from './coverage.js';

/** Every request as received: headers and the raw body. */
function receiver() {
  const got: Array<{ path: string; headers: Record<string, string>; raw: string }> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      got.push({ path: req.url ?? '/', headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), raw });
      res.writeHead(200).end('ok');
    });
  });
  return {
    got,
    base: async () => {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const until = async (cond: () => boolean, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

void describe('client: webhooks and streams', () => {
  let m: Market;
  let base: string;
  let seller: Seller;
  const rx = receiver();
  before(async () => {
    m = await openMarket({ WEBHOOK_TIMEOUT_MS: '2000' });
    // A receiver refuses a webhook-timestamp far from its clock: the market's clock is the wall's here.
    m.clock.set(Date.now());
    await m.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(m.app.server.address() as net.AddressInfo).port}`;
    seller = await newSeller(m, 'p2wpkh', 'client-push-seller', 8);
  });
  after(async () => {
    await m?.close();
    await rx.close();
  });

  /** Lists one more unit of the seller's and delists it through the client: a listing_delisted in its owner feed. */
  const delistOne = async (c: MarketClient, price: number) => {
    const l = await listUnit(m, seller, price);
    const r = (await c.http.call('POST /v1/listings/{id}/delist', { params: { id: l.id } })).result;
    assert.equal(r.state, 'ended');
    return l.id;
  };

  void it('webhooks: register, deliver (verified as the reference library does), rotate, log, replay, delete', async () => {
    const c = await clientFor(m, seller.w, { sign: 0 });
    const url = `${await rx.base()}/client-hook`;
    const ep = await c.webhooks.register(url);
    assert.match(ep.secret, /^whsec_/);
    const listed = await c.webhooks.list();
    assert.deepEqual(listed.map((e) => e.id), [ep.id]);
    assert.equal((listed[0] as unknown as Record<string, unknown>).secret, undefined, 'no secret in the list');

    const dispatcher = dispatcherOf(m.ctx, eventLogSource(m.ctx), { policy: { scheduleMs: [0], jitter: 0, random: () => 0 } });
    const listingId = await delistOne(c, 21_000);
    await dispatcher.run();
    await until(() => rx.got.some((g) => g.raw.includes(listingId)), 'the delivery');
    const d = rx.got.find((g) => g.raw.includes(listingId))!;
    const payload = await verifyWebhook(ep.secret, d.headers, d.raw);
    assert.deepEqual([payload.type, payload.address, payload.data.listing_id], ['listing_delisted', seller.w.address, listingId]);
    assert.doesNotThrow(() => new Webhook(ep.secret).verify(d.raw, d.headers), 'the reference library agrees');
    // Refusals: a body changed by one character, another secret, an old request.
    const refused = (p: Promise<unknown>) => assert.rejects(p, (e) => e instanceof MarketError && e.code === 'webhook_signature_invalid');
    await refused(verifyWebhook(ep.secret, d.headers, d.raw.replace('listing_delisted', 'listing_delistee')));
    assert.throws(() => new Webhook(ep.secret).verify(d.raw.replace('listing_delisted', 'listing_delistee'), d.headers));
    await refused(verifyWebhook(`whsec_${btoa('another secret of thirty-two bytes!')}`, d.headers, d.raw));
    await refused(verifyWebhook(ep.secret, d.headers, d.raw, { now: Number(d.headers['webhook-timestamp']) + 301 }));
    await refused(verifyWebhook(ep.secret, { ...d.headers, 'webhook-signature': '' }, d.raw));

    // Rotation: the next delivery carries both signatures; either secret verifies it.
    const rotated = await c.webhooks.rotateSecret(ep.id);
    assert.notEqual(rotated.secret, ep.secret);
    const second = await delistOne(c, 22_000);
    await dispatcher.run();
    await until(() => rx.got.some((g) => g.raw.includes(second)), 'the delivery after rotation');
    const d2 = rx.got.find((g) => g.raw.includes(second))!;
    assert.equal(d2.headers['webhook-signature']!.split(' ').length, 2);
    for (const s of [rotated.secret, ep.secret]) assert.equal((await verifyWebhook(s, d2.headers, d2.raw)).data.listing_id, second);

    // The delivery log (every page), a replay, the delete.
    const log = [];
    for await (const row of c.webhooks.deliveries(ep.id, 1)) log.push(row);
    assert.ok(log.length >= 2, JSON.stringify(log));
    assert.ok(log.every((r) => r.outcome === 'succeeded' && r.response_status === 200), JSON.stringify(log));
    const replay = await c.webhooks.replay(ep.id, log[0]!.id);
    assert.equal(replay.outcome, 'queued');
    assert.deepEqual(await c.webhooks.remove(ep.id), { id: ep.id, deleted: true });
    assert.deepEqual(await c.webhooks.list(), []);
    await assert.rejects(c.webhooks.rotateSecret(ep.id), (e) => e instanceof MarketError && e.code === 'not_found');
  });

  void it('streams: the public stream resumes a cut connection with Last-Event-ID, once each; the owner stream; resync_required', async () => {
    // The platform's fetch against the listening app; the first stream connection is cut after its first frame.
    const opened: Array<{ url: string; lastEventId: string | undefined }> = [];
    const cutting: FetchLike = async (url, init) => {
      if (url.includes('/stream')) opened.push({ url, lastEventId: init.headers['last-event-id'] });
      const r = await fetch(url, init);
      if (!url.includes('/stream')) return r;
      if (opened.length !== 1 || !r.body) return r;
      // Passes chunks through until one carries a frame (`id:`), then ends the body, as a dropped connection does.
      const source = r.body.getReader();
      const cut = new ReadableStream<Uint8Array>({
        async pull(ctl) {
          const { value, done } = await source.read();
          if (done) return ctl.close();
          ctl.enqueue(value);
          if (new TextDecoder().decode(value).includes('\nid: ') || new TextDecoder().decode(value).startsWith('id: ')) {
            void source.cancel().catch(() => undefined);
            ctl.close();
          }
        },
      });
      return { status: r.status, headers: r.headers, text: () => r.text(), body: cut };
    };
    const c = new MarketClient({ baseUrl: base, fetch: recording(cutting), network: 'regtest', ...noSleep });
    await c.signIn(wallet(seller.w, { sign: 0 }));
    const abort = new AbortController();
    const got: StreamEvent[] = [];
    const run = (async () => {
      for await (const e of c.stream({ kind: 'listings' }, { signal: abort.signal, sleep: () => sleep(10) })) got.push(e);
    })();
    await until(() => opened.length === 1, 'the stream to open');
    await sleep(200);
    const prices = [23_000, 24_000];
    try {
      for (const p of prices) await listUnit(m, seller, p);
      await m.sync(); // listed once active
      await until(() => prices.every((p) => got.some((e) => e.price_sats === p && e.kind === 'listed')), `two listed events (got ${JSON.stringify(got.map((e) => [e.seq, e.kind]))}, opened ${JSON.stringify(opened)})`);
    } finally {
      abort.abort();
      await run;
    }
    assert.ok(opened.length >= 2, 'reconnected after the cut');
    assert.equal(opened[1]!.lastEventId, String(got[0]!.seq), 'resumed after the last frame received');
    assert.equal(new Set(got.map((e) => `${e.event_id}:${e.seq}`)).size, got.length, 'no frame twice');
    assert.deepEqual(got.map((e) => e.seq), [...got.map((e) => e.seq)].sort((a, b) => a - b), 'in seq order');

    // The owner stream carries the session's own events.
    const own = new AbortController();
    const mine: StreamEvent[] = [];
    const ownRun = (async () => {
      for await (const e of c.addressStream({ signal: own.signal, sleep: () => sleep(10) })) mine.push(e);
    })();
    await until(() => opened.length >= 3, 'the owner stream to open');
    await sleep(200);
    try {
      const gone = await delistOne(c, 26_000);
      await until(() => mine.some((e) => e.kind === 'listing_delisted' && e.listing_id === gone), 'the owner event');
    } finally {
      own.abort();
      await ownRun;
    }

    // A position older than the retained log answers 410: the typed error, not a reconnect loop.
    const pruned: FetchLike = async () => ({ status: 410, headers: new Headers(), text: async () => JSON.stringify({ error: 'read the feed again', code: 'resync_required', pruned_through: 9 }) });
    const stale = new MarketClient({ baseUrl: base, fetch: pruned, ...noSleep });
    await assert.rejects(stale.stream({}, { after: 1 }).next(), (e) => e instanceof MarketError && e.code === 'resync_required' && e.status === 410 && e.extras.pruned_through === 9);
  });
});

routeCoverage(import.meta.url);
