/**
 * The short market day of CI (#32): `npm run simulate` with a fixed seed for about a minute of
 * trading, on the backend under test — one instance on SQLite; two on PostgreSQL with a private
 * Redis — with every fault that applies switched on. Passes only when every invariant held; a
 * failure prints the simulator's report (seed, first broken invariant, replay line) and the run
 * folder with every process's log and history.jsonl.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backend, pgUrl, redisUrl } from '../helpers/store.js';
import { entryArgs, REPO_ROOT } from '../../sim/processes.js';

const SEED = backend === 'postgres' ? 3201 : 3202;

void test(`a seeded market day under faults holds every invariant (seed ${SEED}, ${backend})`, { timeout: 900_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-sim-'));
  const args = [...entryArgs('sim/main.ts'), '--seed', String(SEED), '--traders', '8', '--minutes', '1', '--faults', 'all', '--json', '--quiet', '--dir', dir,
    ...(backend === 'postgres' && redisUrl ? ['--instances', '2', '--pg-url', pgUrl] : [])];
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, args, { cwd: REPO_ROOT, maxBuffer: 64 << 20 }, (err, out, errOut) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errOut }));
  });
  const summary = stdout.trim() ? JSON.parse(stdout.trim().split('\n').pop()!) : undefined;
  assert.equal(code, 0, `the simulation failed (exit ${code}); run folder ${dir}\n${JSON.stringify(summary, null, 2)}\n${stderr.slice(-4000)}`);
  assert.equal(summary.violations, 0);
  // A documented, open limitation met by chance (sim/history.ts Violation.known) is told, not failed on.
  for (const k of summary.known_limitations ?? []) t.diagnostic(`known limitation met [${k.known}]: ${k.message}`);
  // It traded: the day is not vacuous.
  const ok = Object.entries(summary.counts as Record<string, number>).filter(([k]) => k.endsWith(':ok')).reduce((a, [, n]) => a + n, 0);
  assert.ok(ok >= 20, `at least 20 actions succeeded: ${JSON.stringify(summary.counts)}`);
  assert.ok((summary.counts['list:ok'] ?? 0) >= 1 && (summary.counts['bid:ok'] ?? 0) >= 1, JSON.stringify(summary.counts));
  fs.rmSync(dir, { recursive: true, force: true });
});
