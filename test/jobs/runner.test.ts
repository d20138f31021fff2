/**
 * The job runner's log of failed runs (src/jobs/runner.ts): a run cut by a blip is a warning;
 * the third failure in a row a minute or more after the first, and every one after it until a run
 * passes, is an error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import { ERROR_AFTER_FAILURES, ERROR_AFTER_MS, startJob } from '../../src/jobs/runner.js';

/** Runs `plan` (true: the run passes) one kick at a time, `stepMs` of clock apart; the levels of the failures logged. */
async function levelsOf(plan: boolean[], stepMs: number): Promise<string[]> {
  const levels: string[] = [];
  const at = (level: string) => (_obj: unknown, msg?: string) => void (msg === 'job run failed' && levels.push(level));
  const log = { warn: at('warn'), error: at('error'), info: at('info') } as unknown as FastifyBaseLogger;
  let n = 0;
  let clock = 1_000_000;
  const running = startJob({ name: 'upkeep', intervalMs: 3_600_000, run: async () => {
    if (!plan[n++]) throw new Error('Client has encountered a connection error and is not queryable');
  } }, log, { now: () => clock });
  try {
    for (let i = 0; i < plan.length; i++) {
      await running.kick();
      clock += stepMs;
    }
  } finally {
    await running.stop();
  }
  return levels;
}

test('failed runs: warnings first, errors from the third in a row a minute on, and a pass starts the count again', async () => {
  assert.equal(ERROR_AFTER_FAILURES, 3);
  assert.equal(ERROR_AFTER_MS, 60_000);
  // Fails four times, passes once, fails once more; a minute between runs.
  assert.deepEqual(await levelsOf([false, false, false, false, true, false], 60_000), ['warn', 'warn', 'error', 'error', 'warn']);
});

test('a job run every second through a 7-second blip logs warnings only; still failing a minute on, errors', async () => {
  assert.deepEqual(await levelsOf([false, false, false, false, false, false, false, true], 1_000), Array(7).fill('warn'));
  // The third failure came 2 s after the first: the error waits until the streak is a minute old.
  const long = await levelsOf(Array(70).fill(false), 1_000);
  assert.deepEqual([long.indexOf('error'), long.length, new Set(long.slice(60))], [60, 70, new Set(['error'])]);
});
