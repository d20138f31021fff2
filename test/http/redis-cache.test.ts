/**
 * The Redis response cache. At boot: its client runs without an offline queue, so the first
 * commands are sent while it is still connecting. They wait for the connection instead of
 * failing into silent misses (the first public reads after a start were never cached).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisResponseCache } from '../../src/http/response-cache.js';
import { redisUrl } from '../helpers/store.js';
import { freezingProxy } from '../helpers/freezing-proxy.js';

void test('a set and a get sent before the connection is up still land', { skip: redisUrl ? false : 'needs TEST_REDIS_URL' }, async () => {
  const client = new Redis(redisUrl!, { lazyConnect: false, maxRetriesPerRequest: 1, commandTimeout: 500, enableOfflineQueue: false });
  try {
    assert.notEqual(client.status, 'ready', 'the commands below go out while connecting');
    const cache = new RedisResponseCache(client, `t${crypto.randomBytes(5).toString('hex')}:`, () => 1_000);
    await cache.set('k', { status: 200, body: '{"result":1}', contentType: 'application/json', storedAt: 1_000 }, 30_000);
    assert.equal((await cache.get('k'))?.body, '{"result":1}');
    await cache.clear();
    assert.equal(await cache.get('k'), undefined);
  } finally {
    client.disconnect();
  }
});

void test('an unreachable server degrades to misses, quickly', { skip: redisUrl ? false : 'needs TEST_REDIS_URL' }, async () => {
  const client = new Redis('redis://127.0.0.1:1', { lazyConnect: false, maxRetriesPerRequest: 1, commandTimeout: 500, enableOfflineQueue: false, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    const cache = new RedisResponseCache(client, 'unreachable:', () => 1_000);
    const started = Date.now();
    await cache.set('k', { status: 200, body: 'x', contentType: 'application/json', storedAt: 1_000 }, 30_000);
    assert.equal(await cache.get('k'), undefined);
    assert.ok(Date.now() - started < 2_500, 'bounded by the connection wait');
  } finally {
    client.disconnect();
  }
});

void test('a hung server (connections open, nothing answered) costs one read the bound, then the cache is skipped for the pause', { skip: redisUrl ? false : 'needs TEST_REDIS_URL' }, async () => {
  const proxy = await freezingProxy(redisUrl!);
  // The client as bootstrap.ts makes it: a 2 s command timeout, no offline queue.
  const client = new Redis(proxy.url, { lazyConnect: false, maxRetriesPerRequest: 1, commandTimeout: 2_000, enableOfflineQueue: false });
  client.on('error', () => undefined);
  try {
    const cache = new RedisResponseCache(client, `t${crypto.randomBytes(5).toString('hex')}:`, () => 1_000, { boundMs: 200, pauseMs: 60_000 });
    const value = { status: 200, body: '{"result":2}', contentType: 'application/json', storedAt: 1_000 };
    await cache.set('k', value, 30_000);
    assert.equal((await cache.get('k'))?.body, '{"result":2}', 'served through the proxy');

    proxy.freeze();
    let started = Date.now();
    assert.equal(await cache.get('k'), undefined, 'a miss, not an error');
    assert.ok(Date.now() - started < 1_000, `the first read waited ${Date.now() - started} ms (the client's own timeout is 2 s)`);
    started = Date.now();
    for (let i = 0; i < 20; i++) {
      assert.equal(await cache.get('k'), undefined);
      await cache.set('k', value, 30_000);
    }
    assert.ok(Date.now() - started < 200, `paused: 20 reads and writes took ${Date.now() - started} ms without asking Redis`);
  } finally {
    client.disconnect();
    proxy.close();
  }
});
