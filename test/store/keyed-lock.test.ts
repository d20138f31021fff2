/** One critical section at a time per key: in one process, and across instances on PostgreSQL. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { KeyedLock } from '../../src/store/keyed-lock.js';
import { backend, pgUrl } from '../helpers/store.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

void test('one process: sections of one key never overlap; other keys run side by side', async () => {
  const lock = new KeyedLock(null);
  assert.equal(await overlapOf([lock], () => 'a'), 1);
  assert.ok((await overlapOf([lock], (i) => `k${i}`)) > 1);
  await assert.rejects(lock.run('a', async () => { throw new Error('boom'); }), /boom/);
  assert.equal(await lock.run('a', async () => 'next'), 'next', 'a failed section releases the key');
});

void test('PostgreSQL: two instances (two lock objects) never overlap on a key of the same scope', { skip: backend !== 'postgres' ? 'PostgreSQL only' : false }, async () => {
  const scope = `t_${crypto.randomBytes(4).toString('hex')}`;
  assert.equal(await overlapOf([new KeyedLock(pgUrl, scope), new KeyedLock(pgUrl, scope)], () => 'source'), 1);
  assert.ok((await overlapOf([new KeyedLock(pgUrl, scope), new KeyedLock(pgUrl, `${scope}x`)], () => 'source', 8)) > 1, 'another scope is another market');
});
