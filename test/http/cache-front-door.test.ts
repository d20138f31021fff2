/**
 * Cache hits answered in front of Fastify (src/http/cache-front-door.ts) over real HTTP: same
 * bytes and headers as a hit through the framework, an ETag, 304 on If-None-Match, no hook run,
 * and a fall-through to the framework when the entry expired.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { testApp, type TestApp } from '../helpers/app.js';
import { tableChain } from '../helpers/chain.js';
import http from 'node:http';
import { CacheFrontDoor, JOIN_BODY_MAX, etagMatches, etagOf } from '../../src/http/cache-front-door.js';
import { MemoryResponseCache } from '../../src/http/response-cache.js';
import { RequestIds } from '../../src/http/request-ids.js';

const fake = tableChain({ fees: { fastest: 25.04, half_hour: 12, hour: 8.01, economy: 2, minimum: 1 }, xcpFee: '50000000' });
let t: TestApp;
let base: string;
let routed = 0;
before(async () => {
  t = await testApp({
    chain: { chain: fake.chain },
    beforeReady: (app) => app.addHook('onResponse', async () => void routed++),
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(async () => t.close());

const get = async (path: string, headers: Record<string, string> = {}) => {
  const r = await fetch(base + path, { headers });
  return { status: r.status, headers: Object.fromEntries(r.headers), body: await r.text() };
};
/** Headers that differ per request by design. */
const stable = (h: Record<string, string>) => {
  const { date: _d, 'x-request-id': _id, 'keep-alive': _k, connection: _c, ...rest } = h;
  return rest;
};

test('a known URL is answered before routing with the stored bytes, the same headers and an ETag', async () => {
  await t.ctx.cache.clear();
  const miss = await get('/v1/fee-rate');
  assert.equal(miss.status, 200);
  assert.equal(miss.headers['x-cache'], 'miss');
  assert.match(miss.headers.etag ?? '', /^"[A-Za-z0-9_-]{27}"$/);
  // Another URL of the same key: a hit inside the framework (it routes), which teaches the door nothing new for /v1/fee-rate.
  const r0 = routed;
  const framework = await get('/v1/fee-rate?utm=1', { origin: 'https://wallet.example' });
  assert.equal(framework.headers['x-cache'], 'hit');
  assert.equal(routed, r0 + 1);
  const door = await get('/v1/fee-rate', { origin: 'https://wallet.example' });
  assert.equal(routed, r0 + 1, 'the hit ran no Fastify hook');
  assert.equal(door.status, 200);
  assert.equal(door.body, miss.body);
  assert.deepEqual(stable(door.headers), stable(framework.headers));
  assert.equal(door.headers['access-control-allow-origin'], 'https://wallet.example');
  assert.match(door.headers['x-request-id'] ?? '', /^[A-Za-z0-9_-]{22}$/);
  assert.notEqual(door.headers['x-request-id'], (await get('/v1/fee-rate')).headers['x-request-id'], 'a new id for each hit');
  assert.equal((await get('/v1/fee-rate', { 'x-request-id': 'abc-123' })).headers['x-request-id'], 'abc-123');
  // The door writes each id into its entry's header list: a caller's id never reaches the next answer.
  assert.match((await get('/v1/fee-rate')).headers['x-request-id'] ?? '', /^[A-Za-z0-9_-]{22}$/);
  const plainFramework = await get('/v1/fee-rate?utm=2');
  const plainDoor = await get('/v1/fee-rate');
  assert.deepEqual(stable(plainDoor.headers), stable(plainFramework.headers));
  assert.equal(routed, r0 + 2);
  // CORS headers answer CORS requests only; Vary: Origin is on every answer, so a shared cache keeps both apart.
  assert.equal(door.headers['access-control-expose-headers'], 'x-request-id, retry-after');
  assert.equal(framework.headers['access-control-expose-headers'], 'x-request-id, retry-after');
  for (const h of [plainDoor.headers, plainFramework.headers, miss.headers]) {
    assert.equal(h.vary, 'Origin');
    assert.deepEqual(Object.keys(h).filter((k) => k.startsWith('access-control-')), []);
  }
});

test('a hit at the door carries every header of the miss that made it, the same body, and the freshness left', async () => {
  await t.ctx.cache.clear();
  for (const origin of [undefined, 'https://wallet.example']) {
    await t.ctx.cache.clear();
    const headers: Record<string, string> = origin ? { origin } : {};
    const miss = await get('/v1/fee-rate', headers);
    assert.equal(miss.headers['x-cache'], 'miss');
    await get('/v1/fee-rate?warm=1', headers); // a framework hit teaches the door this URL's key
    const r0 = routed;
    t.clock.advance(12_000);
    const hit = await get('/v1/fee-rate', headers);
    assert.equal(routed, r0, 'answered at the door');
    assert.equal(hit.status, 200);
    assert.equal(hit.body, miss.body);
    assert.equal(hit.headers['content-length'], String(Buffer.byteLength(miss.body)));
    // The miss's header names, no Age (max-age already counts down: a cache downstream would subtract
    // Age again); only the cache's own labels differ, and the freshness left is the spec's 30 s less 12.
    assert.deepEqual(Object.keys(hit.headers).sort(), Object.keys(miss.headers).sort());
    assert.deepEqual({ ...stable(hit.headers), 'x-cache': 'miss', 'cache-control': 'public, max-age=30' }, stable(miss.headers));
    assert.equal(hit.headers['x-cache'], 'hit');
    assert.equal(hit.headers.age, undefined);
    assert.equal(hit.headers['cache-control'], 'public, max-age=18');
    assert.equal(miss.headers['cache-control'], 'public, max-age=30');
    // 304 to the holder of the tag: the same headers less the body's.
    const notModified = await get('/v1/fee-rate', { ...headers, 'if-none-match': miss.headers.etag! });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.body, '');
    const { 'content-length': _l, 'content-type': _t, ...rest } = stable(hit.headers);
    assert.deepEqual(stable(notModified.headers), rest);
    assert.equal(routed, r0);
    t.clock.advance(30_000);
  }
});

test('hits at the door are counted in GET /metrics', async () => {
  await t.ctx.cache.clear();
  await get('/v1/fee-rate');
  await get('/v1/fee-rate?again=1');
  const count = async () => Number(/^market_cache_front_door_hits_total (\d+)$/m.exec((await get('/metrics')).body)?.[1]);
  const before = await count();
  const r0 = routed;
  for (let i = 0; i < 3; i++) assert.equal((await get('/v1/fee-rate')).headers['x-cache'], 'hit');
  assert.equal(routed, r0);
  assert.equal(await count(), before + 3);
});

test('If-None-Match with the ETag gets 304 without a body, at the door and in the framework', async () => {
  await t.ctx.cache.clear();
  const miss = await get('/v1/attach-fee-estimate');
  const etag = miss.headers.etag!;
  const r0 = routed;
  const door = await get('/v1/attach-fee-estimate', { 'if-none-match': etag });
  assert.equal(door.status, 304);
  assert.equal(door.body, '');
  assert.equal(door.headers.etag, etag);
  assert.equal(routed, r0);
  const framework = await get('/v1/attach-fee-estimate?x=1', { 'if-none-match': `W/${etag}, "other"` });
  assert.equal(framework.status, 304);
  assert.equal(framework.body, '');
  assert.equal((await get('/v1/attach-fee-estimate', { 'if-none-match': '"other"' })).status, 200);
  // A miss that computes the same bytes also answers 304 to a client holding them.
  await t.ctx.cache.clear();
  const again = await get('/v1/attach-fee-estimate', { 'if-none-match': etag });
  assert.equal(again.status, 304);
  assert.equal(again.headers['x-cache'], 'miss');
});

test('an expired entry falls through to the framework, which reads the backend again', async () => {
  await t.ctx.cache.clear();
  await get('/v1/fee-rate');
  const calls = fake.stats.calls;
  assert.equal((await get('/v1/fee-rate')).headers['x-cache'], 'hit');
  assert.equal(fake.stats.calls, calls);
  t.clock.advance(31_000);
  const r0 = routed;
  const stale = await get('/v1/fee-rate');
  assert.equal(stale.headers['x-cache'], 'miss');
  assert.equal(routed, r0 + 1);
  assert.equal(fake.stats.calls, calls + 1);
});

test('HEAD at the door sends the headers only; writes never take the door', async () => {
  await get('/v1/fee-rate');
  const head = await fetch(base + '/v1/fee-rate', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('x-cache'), 'hit');
  assert.equal(await head.text(), '');
  const post = await fetch(base + '/v1/fee-rate', { method: 'POST' });
  assert.notEqual(post.headers.get('x-cache'), 'hit');
});

test("the server in front keeps Fastify's timeouts (Node's 5 s keep-alive would reset sockets clients reuse)", () => {
  assert.equal(t.app.server.keepAliveTimeout, 72_000);
});

test('bodies small and large, ASCII or not, leave the door byte for byte with their length', async () => {
  const cache = new MemoryResponseCache(() => 1_000);
  const door = new CacheFrontDoor(cache, () => 1_000, { info: () => undefined }, new RequestIds(), { current: () => true });
  const server = http.createServer(door.handler((_req, res) => res.writeHead(404).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const at = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const bodies = {
      small: JSON.stringify({ result: { name: 'Pépé ₿ 🐸' } }),
      large: JSON.stringify({ result: Array.from({ length: 800 }, (_, i) => ({ id: i, name: `Ω-${i}-🐸` })) }),
    };
    assert.ok(Buffer.byteLength(bodies.small) <= JOIN_BODY_MAX && Buffer.byteLength(bodies.large) > JOIN_BODY_MAX);
    for (const [name, body] of Object.entries(bodies)) {
      await cache.set(name, { status: 200, body, contentType: 'application/json; charset=utf-8', etag: etagOf(body), storedAt: 1_000 }, 30_000);
      door.remember(`/${name}`, name, 30, false);
      for (let i = 0; i < 2; i++) {
        const r = await fetch(`${at}/${name}`);
        const bytes = Buffer.from(await r.arrayBuffer());
        assert.equal(r.status, 200);
        assert.equal(bytes.toString('utf8'), body);
        assert.equal(r.headers.get('content-length'), String(bytes.length));
        assert.equal(r.headers.get('etag'), etagOf(body));
      }
    }
    assert.equal((await fetch(`${at}/unknown`)).status, 404);
    assert.equal(door.hits, 4);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('etagMatches: star, lists and weak forms', () => {
  assert.ok(etagMatches('*', '"a"'));
  assert.ok(etagMatches('"b", W/"a"', '"a"'));
  assert.ok(!etagMatches('"b"', '"a"'));
  assert.ok(!etagMatches(undefined, '"a"'));
});

test('a cached GET whose framing Node refuses (Transfer-Encoding other than chunked) gets exactly one answer, a 400, on its connection', async () => {
  await get('/v1/fee-rate');
  assert.equal((await get('/v1/fee-rate')).headers['x-cache'], 'hit', 'the door knows the URL');
  const raw = (head: string) =>
    new Promise<string>((resolve, reject) => {
      const s = net.connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
      const chunks: Buffer[] = [];
      s.on('data', (c) => chunks.push(c));
      s.on('error', () => {});
      s.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      s.setTimeout(5_000, () => reject(new Error('no close within 5 s')));
      s.write(head);
    });
  for (const te of ['identity', 'gzip', 'chunked, identity']) {
    for (const method of ['GET', 'HEAD']) {
      const out = await raw(`${method} /v1/fee-rate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${te}\r\n\r\n`);
      const statuses = [...out.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((x) => Number(x[1]));
      assert.deepEqual(statuses, [400], `${method} with Transfer-Encoding: ${te}: ${JSON.stringify(out.slice(0, 300))}`);
    }
  }
  assert.equal((await get('/v1/fee-rate')).headers['x-cache'], 'hit', 'a well-framed GET is still a hit');
});
