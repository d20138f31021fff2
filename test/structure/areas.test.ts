/**
 * An area plugs into the service by one line in modules/areas.ts: its manifest's
 * routes are served, its watchers follow blocks (and roll back), its settlement
 * handlers react to its settlements, and its jobs run beside the indexer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { Area } from '../../src/area.js';
import { AREAS } from '../../src/modules/areas.js';
import { startJobs } from '../../src/jobs.js';
import { testApp, type TestApp } from '../helpers/app.js';

describe('area manifests', () => {
  const seen = { blocks: [] as number[], rolledBack: [] as number[], jobRuns: 0 };
  const probe: Area = {
    name: 'probe',
    routes: (app) => {
      app.get('/v1/probe', { schema: { response: { 200: Type.Object({ result: Type.String() }) } }, config: { limit: 'uncached_read' } }, async () => ({ result: 'probe' }));
    },
    watchers: () => [
      {
        name: 'probe',
        onBlock: async (_tx, b) => void seen.blocks.push(b.block.height),
        rollback: async (_tx, height) => void seen.rolledBack.push(height),
      },
    ],
    settlementHandlers: () => ({ probe: {} }),
    jobs: () => [{ name: 'probe-job', intervalMs: 60_000, run: async () => void seen.jobRuns++ }],
  };
  let t: TestApp;

  before(async () => {
    t = await testApp({ areas: [...AREAS, probe] });
  });
  after(async () => t?.close());

  void it('every area of the list has a distinct name, and the list is what the app serves by default', () => {
    const names = AREAS.map((a) => a.name);
    assert.equal(new Set(names).size, names.length);
    for (const n of ['auth', 'listings', 'checkout', 'market', 'events']) assert.ok(names.includes(n), n);
  });

  void it("serves the new area's routes", async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/probe' });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(JSON.parse(r.body), { result: 'probe' });
  });

  void it("runs the new area's watcher on each block, after the existing ones, and rolls it back on a reorg", async () => {
    const devnet = t.ctx.devnet!;
    await t.ctx.indexer.run();
    const start = (await t.ctx.indexer.cursor())!.height;
    await devnet.mine(2);
    await t.ctx.indexer.run();
    assert.deepEqual(seen.blocks.filter((h) => h > start), [start + 1, start + 2]);
    const tip = start + 2;
    await devnet.reorg(1);
    await t.ctx.indexer.run();
    assert.deepEqual(seen.rolledBack, [tip]);
  });

  void it("registers the new area's settlement kind once: a second area claiming it fails at boot", async () => {
    await assert.rejects(testApp({ areas: [...AREAS, probe, { name: 'again', settlementHandlers: () => ({ probe: {} }) }] }), /settlement kind probe already has handlers/);
  });

  void it("starts the new area's job beside recovery and the indexer", async () => {
    const jobs = await startJobs(t.ctx);
    try {
      // One instance leads every singleton role: recovery and the indexer run here too.
      for (const name of ['recovery', 'indexer', 'probe-job']) assert.ok(jobs.byName.has(name), name);
      await jobs.byName.get('probe-job')!.kick();
      assert.ok(seen.jobRuns >= 1);
    } finally {
      await jobs.stop();
    }
  });
});
