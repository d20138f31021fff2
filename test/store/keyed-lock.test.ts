/** One critical section at a time per key: in one process, and across instances on PostgreSQL. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { KeyedLock } from '../../src/store/keyed-lock.js';
import { backend, pgUrl } from '../helpers/store.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The most sections that were inside at once, of `n` run on `locks` in turn, each holding its key a while. */
async function overlapOf(locks: KeyedLock[], key: (i: number) => string, n = 12): Promise<number> {
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      locks[i % locks.length]!.run(key(i), async () => {
        most = Math.max(most, ++inside);
        await sleep(5);
        inside--;
      }),
    ),
  );
  return most;
}

/**
 * One section per [lock, key], each waiting inside until every one of them is inside: it resolves
 * only if none excludes another. Sections that exclude each other would wait for good, so after
 * `ms` the sections still waiting give up (and release their keys) and this rejects.
 */
async function allInside(sections: Array<[KeyedLock, string]>, ms: number): Promise<void> {
  let inside = 0;
  let everyone!: () => void;
  const all = new Promise<void>((r) => (everyone = r));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`only ${inside} of ${sections.length} sections inside after ${ms} ms: they exclude each other`)), ms);
  });
  deadline.catch(() => undefined);
  const settled = await Promise.allSettled(
    sections.map(([lock, key]) =>
      lock.run(key, async () => {
        if (++inside === sections.length) everyone();
        await Promise.race([all, deadline]);
      }),
    ),
  );
  clearTimeout(timer);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

void test('one process: sections of one key never overlap; other keys run side by side', async () => {
  const lock = new KeyedLock(null);
  assert.equal(await overlapOf([lock], () => 'a'), 1);
  await allInside(Array.from({ length: 12 }, (_, i): [KeyedLock, string] => [lock, `k${i}`]), 10_000);
  await assert.rejects(allInside([[lock, 'a'], [lock, 'a']], 300), /exclude each other/, 'one key: the second waits for the first');
  await assert.rejects(lock.run('a', async () => { throw new Error('boom'); }), /boom/);
  assert.equal(await lock.run('a', async () => 'next'), 'next', 'a failed section releases the key');
});

void test('PostgreSQL: two instances (two lock objects) never overlap on a key of the same scope', { skip: backend !== 'postgres' ? 'PostgreSQL only' : false }, async () => {
  const scope = `t_${crypto.randomBytes(4).toString('hex')}`;
  assert.equal(await overlapOf([new KeyedLock(pgUrl, scope), new KeyedLock(pgUrl, scope)], () => 'source'), 1);
  await assert.rejects(allInside([[new KeyedLock(pgUrl, scope), 'source'], [new KeyedLock(pgUrl, scope), 'source']], 1_000), /exclude each other/, 'one scope: one market');
  // Inside its section, each waits for the other's: on one market they would wait for good.
  await allInside([[new KeyedLock(pgUrl, scope), 'source'], [new KeyedLock(pgUrl, `${scope}x`), 'source']], 20_000);
});
