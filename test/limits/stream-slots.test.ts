/**
 * Stream slots (concurrent streams per IP and per address): the in-process counter, and the
 * Redis one shared by several instances, each instance here a RedisStreamSlots of its own on one
 * Redis and one prefix, as two API processes are. A slot is all or none over its keys, given back
 * once, and an instance that dies without giving its slots back (no renewals) frees them within
 * the TTL while a live instance's slots outlast it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryStreamSlots, type SlotGrant, type StreamSlots } from '../../src/limits/stream-slots.js';
import { RedisStreamSlots } from '../../src/limits/redis-stream-slots.js';
import { freezingProxy } from '../helpers/freezing-proxy.js';

const url = process.env.TEST_REDIS_URL || undefined;
const skip = url ? false : 'TEST_REDIS_URL not set';
const released = (g: SlotGrant) => {
  assert.ok('release' in g, `a slot: ${JSON.stringify(g)}`);
  return g.release;
};
const ip = (limit: number) => ({ key: 'ip:198.51.100.7', limit });
const addr = (limit: number) => ({ key: 'address:bcrt1qexample', limit });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The same story on one counter (`a` and `b` the same) or on two instances of a shared one. */
async function story(a: StreamSlots, b: StreamSlots): Promise<void> {
  const r1 = released(await a.take([ip(3)]));
  released(await a.take([ip(3), addr(1)]));
  released(await b.take([ip(3)]));
  assert.deepEqual(await b.take([ip(3)]), { full: 'ip:198.51.100.7' }, 'the fourth from one IP, on either instance');
  assert.deepEqual(await a.take([ip(3)]), { full: 'ip:198.51.100.7' });
  r1();
  r1();
  const r4 = released(await b.take([ip(3)]));
  assert.deepEqual(await b.take([ip(3)]), { full: 'ip:198.51.100.7' }, 'a release counts once');
  // All or none: the address is full, so the IP's count is left as it was.
  r4();
  assert.deepEqual(await b.take([ip(3), addr(1)]), { full: 'address:bcrt1qexample' });
  released(await b.take([ip(3)]));
  assert.deepEqual(await a.take([ip(3)]), { full: 'ip:198.51.100.7' });
}

void describe('stream slots', () => {
  void it('in process: a limit per key, all or none, each release once', async () => {
    const m = new MemoryStreamSlots();
    await story(m, m);
  });

  void describe('on Redis, shared by two instances', () => {
    const made: RedisStreamSlots[] = [];
    const clients: Redis[] = [];
    const prefix = `test:slots:${randomUUID()}:`;
    const instance = (ttlMs?: number) => {
      const client = new Redis(url!);
      clients.push(client);
      const s = new RedisStreamSlots({ client, prefix, ttlMs });
      made.push(s);
      return s;
    };
    after(async () => {
      for (const s of made) await s.close();
      for (const c of clients) c.disconnect();
    });

    void it('one limit across instances', { skip }, async () => {
      await story(instance(), instance());
      const keys = await clients[0]!.keys(`${prefix}*`);
      assert.deepEqual(keys.sort(), [`${prefix}ss:address:bcrt1qexample`, `${prefix}ss:ip:198.51.100.7`]);
      assert.ok((await clients[0]!.pttl(keys[0]!)) > 0, 'the keys expire');
    });

    void it('a hung Redis costs a take its bound, not the client\'s command timeout', { skip }, async () => {
      const proxy = await freezingProxy(url!);
      const client = new Redis(proxy.url, { lazyConnect: false, maxRetriesPerRequest: 1, commandTimeout: 2_000, enableOfflineQueue: false });
      client.on('error', () => undefined);
      const slots = new RedisStreamSlots({ client, prefix, timeoutMs: 200 });
      try {
        await once(client, 'ready');
        released(await slots.take([ip(50)]));
        proxy.freeze();
        const started = Date.now();
        await assert.rejects(slots.take([ip(50)]), /timed out/);
        assert.ok(Date.now() - started < 1_000, `waited ${Date.now() - started} ms`);
      } finally {
        await slots.close();
        client.disconnect();
        proxy.close();
      }
    });

    void it('a take that lands after its bound gives its slot back: the stream it was for went through uncounted', { skip }, async () => {
      const client = new Redis(url!);
      clients.push(client);
      const slots = new RedisStreamSlots({ client, prefix, timeoutMs: 100 });
      made.push(slots);
      const own = { key: `ip:192.0.2.${Math.floor(Math.random() * 200)}`, limit: 50 };
      released(await slots.take([own]));
      // Redis slow for a moment: the take is sent, answered after the bound.
      const c = client as unknown as { streamSlotTake: (...a: string[]) => Promise<number> };
      const send = c.streamSlotTake.bind(client);
      c.streamSlotTake = async (...a) => {
        await sleep(300);
        return send(...a);
      };
      await assert.rejects(slots.take([own]), /timed out/);
      // Before, the late slot was held for the TTL (30 s): CI once saw one IP's viewers refused 429 for that long.
      const counted = () => clients[0]!.zcard(`${prefix}ss:${own.key}`);
      await sleep(500);
      assert.equal(await counted(), 1, 'only the first take holds a slot');
    });

    void it("a dead instance's slots expire within the TTL; a live instance's are renewed past it", { skip }, async () => {
      const key = { key: `ip:203.0.113.${Math.floor(Math.random() * 200)}`, limit: 2 };
      // Instances share one TTL (each take and renewal sets the key's expiry to it). 1.2 s, not
      // 600 ms: the live instance renews every 400 ms, so a pause of this process of up to 800 ms
      // (a loaded machine) does not let its slot lapse; the wait outlasts the TTL, so only renewals
      // keep the live slot, and it gives the dead one's expiry 800 ms of slack (Redis's clock).
      const live = instance(1_200);
      const dying = instance(1_200);
      released(await live.take([key]));
      released(await dying.take([key]));
      assert.ok('full' in (await live.take([key])));
      // The process dies: no release, no more renewals.
      await dying.close();
      await sleep(2_000);
      assert.ok('release' in (await live.take([key])), "the dead instance's slot expired");
      assert.ok('full' in (await live.take([key])), "the live instance's first slot is still held, renewed past its TTL");
    });
  });
});
