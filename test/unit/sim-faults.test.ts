/**
 * The simulator's fault injector on a world of stand-in processes: a process already killed (its
 * restart pending) is not killed again. Killing it twice scheduled two starts, and the two
 * processes then ran as one — a signer bound twice to its port, the first never stopped (seeds
 * 6001 and 6002 left signers running after their days) — and `heal` starts what is still down.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { FaultInjector } from '../../sim/faults.js';
import { History } from '../../sim/history.js';
import { Rng } from '../../sim/rng.js';
import type { World } from '../../sim/world.js';

const proc = () => ({ proc: { exitCode: null as number | null, signalCode: null as string | null } });

function fakeWorld() {
  const starts = { signer: 0, redis: 0, market: 0 };
  const w = {
    o: { redis: true, backend: 'postgres' },
    signer: proc(),
    redis: proc(),
    markets: [proc()],
    live() {
      return this.markets.filter((m) => m.proc.signalCode === null);
    },
    async killSigner() {
      w.signer.proc.signalCode = 'SIGKILL';
    },
    async startSigner() {
      starts.signer++;
      w.signer = proc();
    },
    async stopRedis() {
      w.redis.proc.signalCode = 'SIGKILL';
    },
    async startRedis() {
      starts.redis++;
      w.redis = proc();
    },
    async killMarket(i: number) {
      w.markets[i]!.proc.signalCode = 'SIGKILL';
    },
    async startMarket(i: number) {
      starts.market++;
      w.markets[i] = proc();
    },
    proxy: { state: { down: false, hold: false }, release() {} },
  };
  return { w, starts };
}

for (const fault of ['signer', 'redis', 'kill'] as const) {
  void test(`a ${fault} fault drawn twice before its restart kills once and starts once`, async () => {
    const { w, starts } = fakeWorld();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-faults-'));
    const history = new History(path.join(dir, 'history.jsonl'));
    const f = new FaultInjector(w as unknown as World, new Rng(7), history, [fault]);
    await f.inject();
    await f.inject();
    await f.inject();
    await f.heal();
    const key = fault === 'kill' ? 'market' : fault;
    assert.equal(starts[key], 1, `${fault}: one start for one kill`);
    const lines = fs.readFileSync(history.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { fault?: string });
    assert.equal(lines.filter((l) => l.fault === fault).length, 1, 'the fault is recorded once');
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
