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

/** Each fault's drawn while, at a tenth: the same draws and order; still far longer than the injections in a row. */
const FAST = 0.1;

const proc = () => ({ proc: { exitCode: null as number | null, signalCode: null as string | null } });

function fakeWorld() {
  const starts = { signer: 0, redis: 0, market: 0, pauses: 0, resumes: 0, dbStalls: 0, dbResumes: 0 };
  let paused = false;
  let dbStalled = false;
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
    pauseRedis() {
      starts.pauses++;
      paused = true;
    },
    resumeRedis() {
      if (paused) starts.resumes++;
      paused = false;
    },
    pauseDb() {
      starts.dbStalls++;
      dbStalled = true;
    },
    resumeDb() {
      if (dbStalled) starts.dbResumes++;
      dbStalled = false;
    },
    async killMarket(i: number) {
      w.markets[i]!.proc.signalCode = 'SIGKILL';
    },
    async startMarket(i: number) {
      starts.market++;
      w.markets[i] = proc();
    },
    proxy: { state: { down: false, hold: false }, release() {} },
    cpFaults: [] as string[],
    async control(route: string, body: { fault?: string }) {
      if (route === 'counterparty-fault') w.cpFaults.push(body.fault!);
      return {};
    },
  };
  return { w, starts, paused: () => paused, dbStalled: () => dbStalled };
}

for (const fault of ['signer', 'redis', 'kill'] as const) {
  void test(`a ${fault} fault drawn twice before its restart kills once and starts once`, async () => {
    const { w, starts } = fakeWorld();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-faults-'));
    const history = new History(path.join(dir, 'history.jsonl'));
    const f = new FaultInjector(w as unknown as World, new Rng(7), history, [fault], FAST);
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

const drawn = new Set<string>();
for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) void test(`a redis_hang freezes Redis once, no kill lands on a frozen Redis, and heal lets it run (seed ${seed})`, async () => {
  const { w, starts, paused } = fakeWorld();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-faults-'));
  const history = new History(path.join(dir, 'history.jsonl'));
  const f = new FaultInjector(w as unknown as World, new Rng(seed), history, ['redis_hang', 'redis'], FAST);
  for (let i = 0; i < 6; i++) await f.inject();
  const lines = () => fs.readFileSync(history.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { fault?: string });
  await f.heal();
  const first = lines().find((l) => l.fault === 'redis' || l.fault === 'redis_hang')!.fault;
  // Whichever came first holds Redis until it is undone: the other is not drawn onto it.
  assert.equal(lines().filter((l) => l.fault === 'redis' || l.fault === 'redis_hang').length, 1, 'one fault on Redis at a time');
  assert.equal(paused(), false, 'healed: Redis runs');
  if (first === 'redis_hang') {
    assert.equal(starts.pauses, 1);
    assert.equal(starts.resumes, 1);
    assert.equal(starts.redis, 0, 'a frozen Redis is resumed, not started again');
  } else assert.equal(starts.redis, 1);
  drawn.add(first!);
  fs.rmSync(dir, { recursive: true, force: true });
});

void test('both Redis faults came first in some seed above', () => {
  assert.deepEqual([...drawn].sort(), ['redis', 'redis_hang']);
});

void test('a pg_hang stalls the database once until it is undone, and heal lets it flow', async () => {
  const { w, starts, dbStalled } = fakeWorld();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-faults-'));
  const history = new History(path.join(dir, 'history.jsonl'));
  const f = new FaultInjector(w as unknown as World, new Rng(3), history, ['pg_hang'], FAST);
  for (let i = 0; i < 4; i++) await f.inject();
  assert.equal(dbStalled(), true, 'stalled until its drawn while ends');
  assert.equal(starts.dbStalls, 1, 'a stalled database is not stalled again');
  await f.heal();
  assert.equal(dbStalled(), false, 'healed: the database flows');
  assert.equal(starts.dbResumes, 1);
  await history.close();
  const lines = fs.readFileSync(history.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { fault?: string });
  assert.deepEqual(lines.map((l) => l.fault).filter(Boolean), ['pg_hang', 'pg_resumed', 'healed']);
  fs.rmSync(dir, { recursive: true, force: true });
});

void test('a cp_fault puts one Counterparty failure on until it is undone; heal takes any off', async () => {
  const { w } = fakeWorld();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-faults-'));
  const history = new History(path.join(dir, 'history.jsonl'));
  const f = new FaultInjector(w as unknown as World, new Rng(5), history, ['cp_fault'], FAST);
  for (let i = 0; i < 4; i++) await f.inject();
  assert.equal(w.cpFaults.length, 1, 'one failure at a time');
  assert.ok(['not_ready', 'electrs_failed', 'electrs_not_configured'].includes(w.cpFaults[0]!));
  await f.heal();
  assert.equal(w.cpFaults.at(-1), 'none', 'healed: Counterparty answers');
  assert.equal(w.cpFaults.filter((x) => x === 'none').length, 2, 'undone once, and once more by heal');
  fs.rmSync(dir, { recursive: true, force: true });
});
