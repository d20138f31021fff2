import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryLimiter } from '../../src/limits/memory-limiter.js';
import { limiterContract } from './limiter-contract.js';

limiterContract('memory', async () => new MemoryLimiter());

/** The per-key logs, read for the memory-bound tests only. */
const logsOf = (l: MemoryLimiter) => (l as unknown as { logs: Map<string, number[]> }).logs;

void describe('memory limiter: bounded memory', () => {
  void it('keeps at most `limit` entries per key, however hard the key is hammered', async () => {
    const l = new MemoryLimiter();
    for (let t = 0; t < 5_000; t++) await l.consume([{ key: 'k', limit: 7 }], t);
    assert.ok(logsOf(l).get('k')!.length <= 7);
  });

  void it('a lowered limit trims the log to the newest entries without changing the decision', async () => {
    const l = new MemoryLimiter();
    for (let t = 0; t < 10; t++) await l.consume([{ key: 'k', limit: 10 }], t * 1_000);
    // Under a limit of 4, the request passes when the 4th newest (t=6000) leaves the window.
    assert.deepEqual(await l.consume([{ key: 'k', limit: 4 }], 20_000), { allowed: false, retryAfterMs: 46_000, bucket: 'k' });
    assert.equal(logsOf(l).get('k')!.length, 4);
    assert.equal((await l.consume([{ key: 'k', limit: 4 }], 66_000)).allowed, true);
  });

  void it('drops keys that have been idle for a whole window', async () => {
    const l = new MemoryLimiter();
    for (let i = 0; i < 1_000; i++) await l.consume([{ key: `idle${i}`, limit: 5 }], 1_000);
    assert.equal(l.trackedKeys, 1_000);
    await l.consume([{ key: 'fresh', limit: 5 }], 60_999);
    assert.equal(l.trackedKeys, 1_001); // t=1000 entries still count at 60999
    await l.consume([{ key: 'fresh', limit: 5 }], 121_000);
    assert.equal(l.trackedKeys, 1);
  });

  void it('close releases everything', async () => {
    const l = new MemoryLimiter();
    await l.consume([{ key: 'k', limit: 1 }], 0);
    await l.close();
    assert.equal(l.trackedKeys, 0);
  });
});
