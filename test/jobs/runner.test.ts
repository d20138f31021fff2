/**
 * The job runner's log of failed runs (src/jobs/runner.ts): a run cut by a blip is a warning;
 * the third failure in a row and every one after it until a run passes is an error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import { ERROR_AFTER_FAILURES, startJob } from '../../src/jobs/runner.js';

test('failed runs: warnings first, errors from the third in a row, and a pass starts the count again', async () => {
  const levels: string[] = [];
  const at = (level: string) => (_obj: unknown, msg?: string) => void (msg === 'job run failed' && levels.push(level));
  const log = { warn: at('warn'), error: at('error'), info: at('info') } as unknown as FastifyBaseLogger;
  // Fails four times, passes once, fails once more.
  const plan = [false, false, false, false, true, false];
  let n = 0;
  const running = startJob({ name: 'upkeep', intervalMs: 3_600_000, run: async () => {
    if (!plan[n++]) throw new Error('Client has encountered a connection error and is not queryable');
  } }, log);
  try {
    for (let i = 0; i < plan.length; i++) await running.kick();
  } finally {
    await running.stop();
  }
  assert.equal(ERROR_AFTER_FAILURES, 3);
  assert.deepEqual(levels, ['warn', 'warn', 'error', 'error', 'warn']);
});
