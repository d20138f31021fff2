/**
 * The Redis response cache at boot: its client runs without an offline queue, so the first
 * commands are sent while it is still connecting. They wait for the connection instead of
 * failing into silent misses (the first public reads after a start were never cached).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisResponseCache } from '../../src/http/response-cache.js';
import { redisUrl } from '../helpers/store.js';

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
