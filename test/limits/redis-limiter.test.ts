import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { LimiterUnavailable } from '../../src/limits/limiter.js';
import { RedisLimiter, connectRedisLimiter, limiterRedisOptions } from '../../src/limits/redis-limiter.js';
import { limiterContract } from './limiter-contract.js';
import { LimiterBreaker, SHARED_RETRY_MS } from '../../src/limits/limiter-breaker.js';
import { OutageWindows } from '../../src/limits/outage-windows.js';
import { freezingProxy } from '../helpers/freezing-proxy.js';

const url = process.env.TEST_REDIS_URL || undefined;
const skip = url ? false : 'TEST_REDIS_URL not set';
const freshPrefix = () => `test:limits:${randomUUID()}:`;

limiterContract('redis', async () => connectRedisLimiter({ url: url!, prefix: freshPrefix() }), skip);

void describe('redis limiter: on a real server', () => {
  // One plain client to look at what the limiter wrote.
  let inspector: Redis | undefined;
  const inspect = () => (inspector ??= new Redis(url!, { lazyConnect: true }));
  after(() => inspector?.disconnect());

  void it('writes prefixed sorted sets that expire about 61 s after the last count, bounded to the limit', { skip }, async () => {
    const prefix = freshPrefix();
    const l = connectRedisLimiter({ url: url!, prefix });
    try {
      for (let t = 0; t < 50; t++) await l.consume([{ key: 'k', limit: 5 }], 1_000 + t);
      const key = `${prefix}rl:k`;
      assert.equal(await inspect().zcard(key), 5);
      const ttl = await inspect().pttl(key);
      assert.ok(ttl > 59_000 && ttl <= 61_000, `pttl ${ttl}`);
      assert.deepEqual(await inspect().keys(`${prefix}*`), [key]);
    } finally {
      await l.close();
    }
  });

  void it('falls back to EVAL when the server has forgotten the script', { skip }, async () => {
    const l = connectRedisLimiter({ url: url!, prefix: freshPrefix() });
    try {
      assert.equal((await l.consume([{ key: 'k', limit: 2 }], 0)).allowed, true);
      await inspect().script('FLUSH');
      assert.equal((await l.consume([{ key: 'k', limit: 2 }], 0)).allowed, true);
      assert.equal((await l.consume([{ key: 'k', limit: 2 }], 0)).allowed, false);
    } finally {
      await l.close();
    }
  });

  void it('two limiters (two API processes) on one prefix share the budget; another prefix does not', { skip }, async () => {
    const prefix = freshPrefix();
    const [a, b, other] = [connectRedisLimiter({ url: url!, prefix }), connectRedisLimiter({ url: url!, prefix }), connectRedisLimiter({ url: url!, prefix: freshPrefix() })];
    try {
      const bucket = [{ key: 'shared', limit: 20 }];
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).consume(bucket, 1_000)));
      assert.equal(results.filter((r) => r.allowed).length, 20);
      assert.equal((await other.consume(bucket, 1_000)).allowed, true);
    } finally {
      await Promise.all([a.close(), b.close(), other.close()]);
    }
  });

  void it("an instance's Redis outage: it decides from its own last minute, and Redis counts the outage's requests once it answers (two instances, one cut off from Redis)", { skip }, async () => {
    const prefix = freshPrefix();
    const proxy = await freezingProxy(url!);
    const quiet = { warn: () => undefined, info: () => undefined };
    const windows = new OutageWindows();
    const client = new Redis(proxy.url, limiterRedisOptions(200));
    client.on('error', () => undefined);
    const a = new LimiterBreaker(new RedisLimiter({ client, prefix, timeoutMs: 200, ownsClient: true }), quiet, windows);
    const b = connectRedisLimiter({ url: url!, prefix });
    const bucket = [{ key: 'address:bc1qbot', limit: 5 }];
    /** As rate-limit.ts does: the shared limiter, or this instance's windows while it cannot answer. */
    const viaA = (now: number) => a.consume(bucket, now).catch((e) => (e instanceof LimiterUnavailable ? windows.consume(bucket, now) : Promise.reject(e)));
    try {
      for (let i = 0; i < 2; i++) assert.equal((await viaA(1_000)).allowed, true);
      await proxy.down();
      // A's Redis is gone: the 2 it counted there still count here, so only 3 more pass.
      for (let i = 0; i < 3; i++) assert.equal((await viaA(2_000)).allowed, true, `outage request ${i}`);
      assert.equal((await viaA(2_000)).allowed, false, 'the budget of 5 holds through the outage');
      assert.equal(await inspect().zcard(`${prefix}rl:address:bc1qbot`), 2, 'Redis has only what it counted');
      await proxy.up();
      await once(client, 'ready', { signal: AbortSignal.timeout(10_000) }); // reconnects within its 2 s backoff cap
      // Back: A adds its outage's 3 to Redis before deciding; the bot's budget is spent everywhere.
      assert.equal((await viaA(2_000 + SHARED_RETRY_MS)).allowed, false);
      assert.equal(windows.owes, false, 'nothing left owed');
      assert.equal(await inspect().zcard(`${prefix}rl:address:bc1qbot`), 5);
      assert.equal((await b.consume(bucket, 3_500)).allowed, false, 'the other instance sees 5 counted (before: 2, and 3 more passed)');
    } finally {
      await Promise.all([a.close(), b.close()]);
      proxy.close();
    }
  });

  void it('a stall of this process longer than the timeout is not an outage: the healthy server\'s answer counts (CI saw 503s from a loaded test process)', { skip }, async () => {
    const l = connectRedisLimiter({ url: url!, prefix: freshPrefix(), timeoutMs: 100 });
    try {
      assert.equal((await l.consume([{ key: 'warm', limit: 5 }], 0)).allowed, true);
      for (let i = 0; i < 3; i++) {
        const pending = l.consume([{ key: 'k', limit: 5 }], 0);
        // Block the event loop six times the bound right after the call (the command is written
        // only once we yield): the timer is due when we look again, the reply not yet read.
        const until = Date.now() + 600;
        while (Date.now() < until);
        assert.equal((await pending).allowed, true);
      }
    } finally {
      await l.close();
    }
  });

  void it('an injected client is used but not closed by the limiter', { skip }, async () => {
    const client = new Redis(url!, limiterRedisOptions());
    const l = new RedisLimiter({ client, prefix: freshPrefix() });
    try {
      assert.equal((await l.consume([{ key: 'k', limit: 1 }], 0)).allowed, true);
      await l.close();
      assert.equal(await client.ping(), 'PONG');
    } finally {
      client.disconnect();
    }
  });
});

void describe('redis limiter: outages', () => {
  void it('an unreachable server (port 1) rejects with LimiterUnavailable at once, every time, never by waiting out its timeout', async () => {
    // A timeout no loaded machine reaches: a rejection before it, and not by it, is the refused
    // connection failing fast (a wall-clock bound of a few hundred ms can fail on a loaded machine).
    const timeoutMs = 30_000;
    const l = connectRedisLimiter({ url: 'redis://127.0.0.1:1', prefix: freshPrefix(), timeoutMs });
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        await assert.rejects(l.consume([{ key: 'k', limit: 1 }], 0), (e: unknown) => {
          assert.ok(e instanceof LimiterUnavailable, String(e));
          assert.doesNotMatch(e.message, /timed out|aborted/, 'failed fast, not by the timeout (its own or the wait for the connection)');
          return true;
        });
        assert.ok(Date.now() - started < timeoutMs, `took ${Date.now() - started} ms`);
      }
    } finally {
      await l.close();
    }
  });

  void it('a server that accepts but never answers is cut off by the timeout', { timeout: 10_000 }, async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => void sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const l = connectRedisLimiter({ url: `redis://127.0.0.1:${port}`, prefix: freshPrefix(), timeoutMs: 200 });
    try {
      const started = Date.now();
      // Cut off by the timeout (the message says so), not sooner; no upper bound in ms, which a
      // loaded machine overshoots: the test's own timeout catches a consume that hangs.
      await assert.rejects(l.consume([{ key: 'k', limit: 1 }], 0), (e: unknown) => {
        assert.ok(e instanceof LimiterUnavailable, String(e));
        assert.match(e.message, /timed out after 200 ms|aborted/, e.message); // its own timer or the wait for the connection's (AbortSignal.timeout)
        return true;
      });
      const took = Date.now() - started;
      assert.ok(took >= 150, `took ${took} ms`);
    } finally {
      await l.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  void it('a closed limiter rejects with LimiterUnavailable', { skip }, async () => {
    const l = connectRedisLimiter({ url: url!, prefix: freshPrefix() });
    assert.equal((await l.consume([{ key: 'k', limit: 1 }], 0)).allowed, true);
    await l.close();
    await assert.rejects(l.consume([{ key: 'k', limit: 1 }], 0), LimiterUnavailable);
  });
});
