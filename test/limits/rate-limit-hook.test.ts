import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { ApiError } from '../../src/http/errors.js';
import { rateLimitHook } from '../../src/http/rate-limit.js';
import { LimiterBreaker, SHARED_RETRY_MS } from '../../src/limits/limiter-breaker.js';
import { LimiterUnavailable, type Limiter } from '../../src/limits/limiter.js';
import { MemoryLimiter } from '../../src/limits/memory-limiter.js';
import { OutageWindows } from '../../src/limits/outage-windows.js';
import { connectRedisLimiter } from '../../src/limits/redis-limiter.js';

type Harness = { app: FastifyInstance; clock: { t: number; now(): number }; warnings: string[]; infos: string[] };

/**
 * A tiny app in the shape of the real one: a stand-in auth hook sets
 * `request.session` (from a test header) and a stand-in cache sets
 * `request.cacheHit`, both before the limiter. The error handler only renders
 * ApiError, as the real one does. With a fallback, the limiter sits behind its breaker, as
 * bootstrap wires the Redis limiter.
 */
async function harness(limiter: Limiter, fallback?: OutageWindows): Promise<Harness> {
  const clock = { t: 1_000, now: () => clock.t };
  const warnings: string[] = [];
  const infos: string[] = [];
  const log = { warn: (_obj: object, msg?: string) => void warnings.push(msg ?? ''), info: (_obj: object, msg?: string) => void infos.push(msg ?? '') };
  const app = Fastify();
  app.setErrorHandler((err, _request, reply) => {
    if (err instanceof ApiError) return reply.status(err.status).headers(err.headers).send(err.toBody());
    return reply.status(500).send({ error: String(err), code: 'internal_error' });
  });
  app.addHook('onRequest', async (request) => {
    const address = request.headers['x-test-address'];
    if (typeof address === 'string') (request as unknown as { session: { address: string } }).session = { address };
    if (request.headers['x-test-cache-hit'] === '1') (request as unknown as { cacheHit: boolean }).cacheHit = true;
  });
  app.addHook('onRequest', rateLimitHook({ limiter: fallback ? new LimiterBreaker(limiter, log, fallback) : limiter, fallback, clock, log }));
  const ok = async () => ({ result: 'ok' });
  app.post('/v1/things/:id/quote', { config: { limit: 'expensive_write' } }, ok);
  app.post('/v1/other/quote', { config: { limit: 'expensive_write' } }, ok);
  app.post('/v1/things/:id/complete', { config: { limit: 'signed_completion' } }, ok);
  app.get('/v1/book', { config: { limit: 'uncached_read' } }, ok);
  app.get('/v1/free', ok);
  await app.ready();
  return { app, clock, warnings, infos };
}

const post = (app: FastifyInstance, url: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') =>
  app.inject({ method: 'POST', url, headers, remoteAddress });

void describe('rateLimitHook', () => {
  void it('answers 429 with code, retry_after_seconds and Retry-After; the budget is per route pattern', async () => {
    const { app, clock } = await harness(new MemoryLimiter());
    const who = { 'x-test-address': 'bc1qseller' };
    for (let i = 0; i < 20; i++) assert.equal((await post(app, `/v1/things/${i}/quote`, who)).statusCode, 200);

    clock.t = 2_500;
    const res = await post(app, '/v1/things/new/quote', who);
    assert.equal(res.statusCode, 429);
    assert.deepEqual(res.json(), { error: 'Too many requests', code: 'rate_limited', retry_after_seconds: 59 }); // 58.5 s, rounded up
    assert.equal(res.headers['retry-after'], '59');

    clock.t = 60_999; // 1 ms left: never 0 seconds
    const last = await post(app, '/v1/things/new/quote', who);
    assert.equal(last.json().retry_after_seconds, 1);
    assert.equal(last.headers['retry-after'], '1');

    // Another route, another budget; another session, another budget.
    assert.equal((await post(app, '/v1/other/quote', who)).statusCode, 200);
    assert.equal((await post(app, '/v1/things/1/quote', { 'x-test-address': 'bc1qother' })).statusCode, 200);
    clock.t = 61_000;
    assert.equal((await post(app, '/v1/things/1/quote', who)).statusCode, 200);
    await app.close();
  });

  void it('anonymous callers count per IP; sessions behind one IP stop together at the ceiling', async () => {
    const { app } = await harness(new MemoryLimiter());
    for (let i = 0; i < 20; i++) assert.equal((await post(app, '/v1/other/quote', {}, '198.51.100.7')).statusCode, 200);
    assert.equal((await post(app, '/v1/other/quote', {}, '198.51.100.7')).statusCode, 429);
    assert.equal((await post(app, '/v1/other/quote', {}, '198.51.100.8')).statusCode, 200);

    const statuses: number[] = [];
    for (let a = 0; a < 6; a++) {
      for (let i = 0; i < 20; i++) statuses.push((await post(app, '/v1/other/quote', { 'x-test-address': `bc1q${a}` }, '198.51.100.9')).statusCode);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 120);
    assert.equal((await post(app, '/v1/other/quote', { 'x-test-address': 'bc1qseventh' }, '198.51.100.9')).statusCode, 429);
    await app.close();
  });

  void it('cache hits do not consume read budget; unlimited routes are never counted', async () => {
    const { app } = await harness(new MemoryLimiter());
    for (let i = 0; i < 400; i++) assert.equal((await app.inject({ url: '/v1/book', headers: { 'x-test-cache-hit': '1' } })).statusCode, 200);
    for (let i = 0; i < 300; i++) assert.equal((await app.inject({ url: `/v1/book?page=${i}` })).statusCode, 200);
    assert.equal((await app.inject({ url: '/v1/book' })).statusCode, 429);
    for (let i = 0; i < 500; i++) assert.equal((await app.inject({ url: '/v1/free' })).statusCode, 200);
    await app.close();
  });

  void it('limiter down: a signed completion passes with a warning; an expensive write or a read gets 503', async () => {
    const limiter = connectRedisLimiter({ url: 'redis://127.0.0.1:1', prefix: 'test:hook:' });
    const { app, warnings } = await harness(limiter);
    try {
      const done = await post(app, '/v1/things/x/complete', { 'x-test-address': 'bc1qbuyer' });
      assert.equal(done.statusCode, 200);
      assert.equal(warnings.length, 1);

      const write = await post(app, '/v1/things/x/quote', { 'x-test-address': 'bc1qbuyer' });
      assert.equal(write.statusCode, 503);
      assert.equal(write.json().code, 'service_unavailable');
      assert.equal(write.json().retryable, true);

      assert.equal((await app.inject({ url: '/v1/book' })).statusCode, 503);
      assert.equal((await app.inject({ url: '/v1/free' })).statusCode, 200);
    } finally {
      await app.close();
      await limiter.close();
    }
  });

  void it('limiter down with a fallback: reads and writes are counted on the instance\'s own windows at the same budgets; completions pass uncounted; the outage is logged once each way', async () => {
    // A shared limiter that is down until `up` is set: an outage that ends, without a Redis to stop.
    let up = false;
    let asked = 0;
    const shared = new MemoryLimiter();
    const flaky: Limiter = {
      consume: async (buckets, now) => {
        asked++;
        if (!up) throw new LimiterUnavailable('connection is reconnecting');
        return shared.consume(buckets, now);
      },
      absorb: (entries, now) => shared.absorb(entries, now),
      close: async () => shared.close(),
    };
    const { app, clock, warnings, infos } = await harness(flaky, new OutageWindows());
    const who = { 'x-test-address': 'bc1qbuyer' };
    for (let i = 0; i < 20; i++) assert.equal((await post(app, `/v1/things/${i}/quote`, who)).statusCode, 200);
    const over = await post(app, '/v1/things/new/quote', who);
    assert.equal(over.statusCode, 429, 'the budget holds through the outage');
    assert.equal(over.json().code, 'rate_limited');
    for (let i = 0; i < 300; i++) assert.equal((await app.inject({ url: `/v1/book?page=${i}` })).statusCode, 200);
    assert.equal((await app.inject({ url: '/v1/book' })).statusCode, 429);
    // Completions fail open as before: not counted anywhere, so none of them is refused.
    for (let i = 0; i < 130; i++) assert.equal((await post(app, '/v1/things/x/complete', who)).statusCode, 200);
    assert.deepEqual(warnings.filter((w) => w.startsWith('shared rate limiter unavailable')).length, 1, 'one warning for the outage, not one per request');
    assert.equal(asked, 1, 'within SHARED_RETRY_MS of a failure the shared limiter is not asked again (a hung one would cost each request its timeout)');

    // A second on, one request tries the shared limiter again: still down, still counted here.
    clock.t += SHARED_RETRY_MS;
    assert.equal((await post(app, '/v1/things/new/quote', who)).statusCode, 429);
    assert.equal(asked, 2);
    // Up again: the outage's requests are added to the shared windows before it decides, so the
    // budget spent during the outage still counts there (before, the next request passed).
    up = true;
    assert.equal((await post(app, '/v1/things/new/quote', who)).statusCode, 429, 'still inside the retry pause');
    clock.t += SHARED_RETRY_MS;
    const after = await post(app, '/v1/things/new/quote', who);
    assert.equal(after.statusCode, 429, 'the 20 quotes of the outage count in the shared window');
    assert.equal(after.json().retry_after_seconds, 58, 'from the oldest of them (t=1000, now 3000)');
    assert.equal(asked, 3);
    assert.deepEqual(infos, ['shared rate limiter answers again; limits are counted across instances']);
    assert.equal((await shared.consume([{ key: 'probe', limit: 1 }], clock.t)).allowed, true);
    clock.t = 61_000; // the outage's quotes (all at t=1000) leave the window together, in the shared limiter
    for (let i = 0; i < 20; i++) assert.equal((await post(app, `/v1/things/n${i}/quote`, who)).statusCode, 200);
    assert.equal((await post(app, '/v1/things/n20/quote', who)).statusCode, 429);
    await app.close();
  });

  void it('an outage starts from what this instance counted in the shared limiter in the last minute, not from an empty window', async () => {
    let up = true;
    const shared = new MemoryLimiter();
    const flaky: Limiter = {
      consume: async (buckets, now) => {
        if (!up) throw new LimiterUnavailable('connection is reconnecting');
        return shared.consume(buckets, now);
      },
      absorb: (entries, now) => shared.absorb(entries, now),
      close: async () => shared.close(),
    };
    const { app, clock } = await harness(flaky, new OutageWindows());
    const who = { 'x-test-address': 'bc1qmirror' };
    for (let i = 0; i < 15; i++) assert.equal((await post(app, `/v1/things/${i}/quote`, who)).statusCode, 200);
    up = false;
    clock.t += 1_000;
    for (let i = 0; i < 5; i++) assert.equal((await post(app, `/v1/things/o${i}/quote`, who)).statusCode, 200, 'the rest of the budget');
    assert.equal((await post(app, '/v1/things/over/quote', who)).statusCode, 429, 'the 15 counted before the outage still count (before: 20 more passed)');
    // Back: only the outage's 5 are added (the 15 are there already), so the shared window holds 20, not 35.
    up = true;
    clock.t += SHARED_RETRY_MS;
    assert.equal((await post(app, '/v1/things/back/quote', who)).statusCode, 429);
    clock.t = 61_000; // the first 15 leave the window (counted at 1000); the outage's 5 (2000) stay
    for (let i = 0; i < 15; i++) assert.equal((await post(app, `/v1/things/n${i}/quote`, who)).statusCode, 200, `slot ${i}`);
    assert.equal((await post(app, '/v1/things/n15/quote', who)).statusCode, 429);
    await app.close();
  });

  void it('while degraded, one request at a time probes a hung shared limiter; the others are answered here meanwhile', async () => {
    let hang: ((e: Error) => void) | undefined;
    let asked = 0;
    const hung: Limiter = {
      consume: async () => {
        asked++;
        if (asked === 1) throw new LimiterUnavailable('connection is reconnecting');
        // The probe: a hung server, answered (with its timeout) only when the test says so.
        return new Promise((_, reject) => void (hang = reject));
      },
      close: async () => undefined,
    };
    const { app, clock } = await harness(hung, new OutageWindows());
    assert.equal((await app.inject({ url: '/v1/book' })).statusCode, 200, 'the first failure: answered here');
    clock.t += SHARED_RETRY_MS;
    const probe = app.inject({ url: '/v1/book' });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(asked, 2, 'one probe in flight');
    for (let i = 0; i < 5; i++) assert.equal((await app.inject({ url: '/v1/book' })).statusCode, 200, 'answered without waiting for the probe');
    assert.equal(asked, 2, 'nobody else asked the hung limiter');
    hang!(new LimiterUnavailable('timed out after 500 ms'));
    assert.equal((await probe).statusCode, 200, 'the probe itself falls back');
    await app.close();
  });

  void it('any other limiter failure is a bug and surfaces as one, even for signed completions', async () => {
    const broken: Limiter = { consume: async () => Promise.reject(new TypeError('boom')), close: async () => undefined };
    const { app } = await harness(broken);
    assert.equal((await post(app, '/v1/things/x/complete')).statusCode, 500);
    await app.close();
  });
});
