/**
 * A short market day on a real Bitcoin Core (`npm run simulate -- --core`): the simulator starts
 * the node BITCOIND names, the devnet follows it, and the traders trade through the client for
 * a minute and a half under the faults that apply to a real node (instance kills, relay faults,
 * reorgs by `invalidateblock`, a node restart that loses the mempool). Passes only when every
 * invariant held and the day traded; a failure prints the report and the run folder.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { entryArgs, REPO_ROOT } from '../../sim/processes.js';
import { BITCOIND, SKIP_REASON } from './bitcoind.js';

const SEED = 3301;

if (!BITCOIND) {
  it('a market day on a real Bitcoin Core', { skip: SKIP_REASON }, () => {});
} else {
  it(`a seeded market day on a real Bitcoin Core holds every invariant (seed ${SEED})`, { timeout: 900_000 }, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-core-sim-'));
    const args = [...entryArgs('sim/main.ts'), '--core', '--seed', String(SEED), '--traders', '6', '--minutes', '1.5', '--faults', 'kill,relay_down,relay_hang,mempool,reorg,signer', '--json', '--quiet', '--dir', dir];
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, args, { cwd: REPO_ROOT, maxBuffer: 64 << 20, env: { ...process.env, BITCOIND } }, (err, out, errOut) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errOut }));
    });
    const summary = stdout.trim() ? JSON.parse(stdout.trim().split('\n').pop()!) : undefined;
    assert.equal(code, 0, `the simulation failed (exit ${code}); run folder ${dir}\n${JSON.stringify(summary, null, 2)}\n${stderr.slice(-4000)}`);
    assert.equal(summary.violations, 0);
    assert.match(summary.node, /^\/Satoshi:/, 'the day ran on the real node');
    for (const k of summary.known_limitations ?? []) t.diagnostic(`known limitation met [${k.known}]: ${k.message}`);
    const counts = summary.counts as Record<string, number>;
    assert.ok((counts['list:ok'] ?? 0) >= 1 && (counts['bid:ok'] ?? 0) >= 1 && (counts['buy:ok'] ?? 0) >= 1, JSON.stringify(counts));
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
