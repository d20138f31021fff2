/**
 * A singleton job's run under its lease (src/jobs.ts `leased`): a run fenced out by another
 * instance's takeover is a handover (a warning, the role given up, no failure for the runner to
 * back off from); any other error is the runner's to log and back off from.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import { leased } from '../../src/jobs.js';
import { FencedOut, lease } from '../../src/cluster/fence.js';
import type { Leadership } from '../../src/cluster/leadership.js';
import type { Job } from '../../src/jobs/runner.js';

function world() {
  const logged: Array<{ level: string; msg: string }> = [];
  const resigned: string[] = [];
  const at = (level: string) => (_obj: unknown, msg?: string) => void logged.push({ level, msg: msg ?? '' });
  const logger = { warn: at('warn'), error: at('error'), info: at('info') } as unknown as FastifyBaseLogger;
  const leadership = { resign: async (role: string) => void resigned.push(role) } as unknown as Leadership;
  return { ctx: { logger, leadership }, logged, resigned };
}

const job = (run: Job['run']): Job => ({ name: 'indexer', role: 'indexer', intervalMs: 1_000, run });

test('a run fenced out gives the role up with a warning and does not fail', async () => {
  const w = world();
  const l = lease('indexer', 3);
  await leased(w.ctx, job(async () => Promise.reject(new FencedOut('indexer', 3))), l).run();
  assert.deepEqual(w.resigned, ['indexer']);
  assert.deepEqual(w.logged.map((e) => e.level), ['warn']);
  assert.match(w.logged[0]!.msg, /fenced out/);
});

test('any other error is thrown to the runner, the role kept', async () => {
  const w = world();
  await assert.rejects(leased(w.ctx, job(async () => Promise.reject(new Error('connection terminated'))), lease('indexer', 3)).run(), /connection terminated/);
  assert.deepEqual(w.resigned, []);
});

test('the lease reaches the job', async () => {
  const w = world();
  const l = lease('recovery', 7);
  let seen: unknown;
  await leased(w.ctx, job(async (given) => void (seen = given)), l).run();
  assert.equal(seen, l);
});
