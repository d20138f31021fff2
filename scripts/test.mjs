#!/usr/bin/env node
// Runs the whole suite: pure tests once, store-backed tests on SQLite and, when
// TEST_POSTGRES_URL is set, again on PostgreSQL (with the Redis limiter and
// cache when TEST_REDIS_URL is set). Prints what it skipped and one closing line.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTestTree } from './test-build.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
// `--core` (npm run test:core) runs only the real Bitcoin Core lane (test/real-core/, needs BITCOIND);
// a plain run leaves that lane out and says so.
const CORE_DIR = 'test/real-core/';
const coreLane = process.argv.includes('--core');
const only = process.argv.slice(2).filter((a) => a !== '--core');
const PURE_DIRS = ['test/bitcoin/', 'test/counterparty/', 'test/unit/'];

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : e.name.endsWith('.test.ts') ? [path.relative(root, p)] : [];
  });
}

// The files that take a minute or more (processes killed and restarted, clusters, the simulator,
// the packed client's examples) start first: a run of two files at a time over an alphabetical
// list left one of them running alone at the end while the other slot idled.
const LONG = ['test/sim/', 'test/checkout/crash-', 'test/policy-offers/crash-', 'test/cluster/', 'test/client/cookbook-', 'test/offers/crash-', 'test/listings/crash-'];
const rank = (f) => {
  const i = LONG.findIndex((p) => f.startsWith(p));
  return i < 0 ? LONG.length : i;
};
let files = walk(path.join(root, 'test')).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
if (only.length) files = files.filter((f) => only.some((o) => f.includes(o)));
files = files.filter((f) => f.startsWith(CORE_DIR) === coreLane);
const pure = files.filter((f) => PURE_DIRS.some((d) => f.startsWith(d)));
const stored = files.filter((f) => !pure.includes(f));

// The files run from a compiled copy of the repository (scripts/test-build.mjs: plain node, no tsx
// hooks, about 2 s of CPU less per process); TEST_TSX=1 runs the sources under tsx instead.
const tree = process.env.TEST_TSX === '1' ? null : await buildTestTree(root);
const base = tree ?? root;
const runnable = (f) => (tree ? path.join(tree, f.replace(/\.ts$/, '.js')) : f);
const loader = tree ? ['--enable-source-maps'] : ['--import', 'tsx'];

const totals = { pass: 0, fail: 0, skipped: 0, todo: 0 };
const skippedNotes = [];
if (!coreLane) skippedNotes.push(`real Bitcoin Core lane (${CORE_DIR}) skipped: set BITCOIND to a bitcoind binary and run npm run test:core.`);
else if (!process.env.BITCOIND) skippedNotes.push('real Bitcoin Core lane skipped: set BITCOIND to a bitcoind binary (e.g. BITCOIND=/usr/local/bin/bitcoind npm run test:core).');

// One node --test run over `list`, its output buffered and printed whole when it ends, so two
// runs side by side never interleave their lines.
const timesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-times-'));
const fileTimes = [];
function run(label, list, env, extra = []) {
  if (!list.length) return Promise.resolve();
  const timesFile = path.join(timesDir, `${fileTimes.length}.tsv`);
  fileTimes.push({ label, timesFile });
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        ...loader, '--test', ...(extra.length ? extra : ['--test-concurrency=2']), '--test-timeout=' + (coreLane ? 900000 : 240000),
        '--test-reporter=spec', '--test-reporter-destination=stdout',
        `--test-reporter=${path.join(root, 'scripts', 'file-times.mjs')}`, `--test-reporter-destination=${timesFile}`,
        ...list.map(runnable),
      ],
      { cwd: base, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (status) => {
      // Paths in the compiled copy are printed as the repository's.
      const raw = Buffer.concat(chunks).toString('utf8');
      const out = tree ? raw.split(tree + path.sep).join('') : raw;
      process.stdout.write(`\n=== ${label}: ${list.length} files ===\n${out}`);
      const num = (re) => Number((out.match(re) ?? [])[1] ?? 0);
      const pass = num(/ℹ pass (\d+)/);
      const fail = num(/ℹ fail (\d+)/) + num(/ℹ cancelled (\d+)/);
      totals.pass += pass;
      totals.fail += fail + (status !== 0 && fail === 0 ? 1 : 0);
      totals.skipped += num(/ℹ skipped (\d+)/);
      totals.todo += num(/ℹ todo (\d+)/);
      resolve();
    });
  });
}

const pgUrl = process.env.TEST_POSTGRES_URL;
const redisUrl = process.env.TEST_REDIS_URL;

// A whole-suite run records every failure the test apps answer; test/conformance/coverage.check.ts
// then fails when a code of the spec's table was never triggered (or left its row).
const observed = only.length ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-observed-'));
const observe = observed ? { CONFORMANCE_OBSERVED: observed } : {};

// The cookbook runs the packed client: build, pack and install it once before the timed files
// (test/client/cookbook-prepare.ts), as a fixture, not inside a file's time limit.
// It runs beside the pure tests (they take no store and little time) and is awaited before the store runs.
let prepared = Promise.resolve();
if (files.some((f) => f.startsWith('test/client/cookbook-'))) {
  prepared = new Promise((resolve) => {
    const prep = spawn(process.execPath, [...loader, runnable('test/client/cookbook-prepare.ts')], { cwd: base, stdio: ['ignore', 'inherit', 'inherit'] });
    prep.on('close', (status) => {
      if (status !== 0) totals.fail += 1;
      resolve();
    });
  });
}
await run('pure core', pure, { TEST_BACKEND: 'sqlite' });
await prepared;
// The lane runs its files one after the other: each starts a bitcoind of its own.
if (coreLane) {
  await run('real Bitcoin Core lane (SQLite store)', stored, { TEST_BACKEND: 'sqlite', TEST_REDIS_URL: '' }, ['--test-concurrency=1']);
  stored.length = 0;
}
// The two store runs go side by side (TEST_SERIAL=1 runs them one after the other): much of a
// run's time is spent waiting (child processes, the devnet's blocks, timers), not computing, so
// together they take far less than one after the other. Each has its own stores and ports.
const runs = [() => run('SQLite store, in-memory limiter', stored, { TEST_BACKEND: 'sqlite', TEST_REDIS_URL: '', ...observe })];
if (coreLane) {
  // The lane runs on SQLite only (its subject is the node, not the store).
} else if (pgUrl) {
  // Three files at a time: this run waits on PostgreSQL's round trips more than it computes (it
  // ran its last five minutes alone at a load average of 1 with two), and it is the longer of the two.
  runs.push(() => run('PostgreSQL store' + (redisUrl ? ', Redis limiter and cache' : ''), stored, { TEST_BACKEND: 'postgres', ...observe }, ['--test-concurrency=3']));
} else {
  skippedNotes.push('PostgreSQL run skipped: set TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run the suite on PostgreSQL.');
}
// test/live-page drives Debian's chromium through playwright-core; without it that browser test skips.
const chromium = '/usr/bin/chromium';
if (files.some((f) => f.startsWith('test/live-page/')) && !fs.existsSync(chromium)) {
  skippedNotes.push(`live page browser test skipped: ${chromium} is absent (apt-get install chromium; .ci/run installs it).`);
}
if (process.env.TEST_SERIAL === '1') for (const r of runs) await r();
else await Promise.all(runs.map((r) => r()));
if (observed && !coreLane) {
  await run('error codes triggered by the suite', ['test/conformance/coverage.check.ts'], observe);
}
if (observed) fs.rmSync(observed, { recursive: true, force: true });
if (totals.todo) skippedNotes.push(`${totals.todo} tests reported as todo (expected to fail): see their output.`);
if (!redisUrl && !coreLane) skippedNotes.push('Redis backend tests skipped: set TEST_REDIS_URL (e.g. redis://127.0.0.1:6379) to run them.');

// The slowest files of each run: where the suite's time goes (CI has 30 minutes).
if (!only.length) {
  for (const { label, timesFile } of fileTimes) {
    const rows = fs.existsSync(timesFile) ? fs.readFileSync(timesFile, 'utf8').trim().split('\n').filter(Boolean) : [];
    if (!rows.length) continue;
    console.log(`\nslowest files, ${label}:`);
    for (const row of process.env.TEST_TIMES_ALL === '1' ? rows : rows.slice(0, 12)) {
      const [ms, file] = row.split('\t');
      // The reporter names a compiled file by its source (the source map), i.e. the repository's path.
      const shown = path.relative(file.startsWith(root + path.sep) ? root : base, file).replace(/\.js$/, '.ts');
      console.log(`  ${(Number(ms) / 1000).toFixed(1).padStart(7)} s  ${shown}`);
    }
  }
}
fs.rmSync(timesDir, { recursive: true, force: true });
if (tree) fs.rmSync(tree, { recursive: true, force: true });
console.log('');
for (const n of skippedNotes) console.log(`skipped: ${n}`);
console.log(`${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(totals.fail > 0 ? 1 : 0);
