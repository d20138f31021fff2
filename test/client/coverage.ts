/**
 * Issue 16's done criterion: the client's own tests drive every route of the market against the
 * real app. Each client test file ends with `routeCoverage(import.meta.url)`: a last test that
 * writes the routes its client sent (harness.ts records them) to a directory shared by the test
 * run (the runner process and the backend), and — in the file that finishes last, once every
 * client test file of the run has written — checks their union against every route of the served
 * OpenAPI document (client/src/generated/schemas.ts, which generated.test.ts proves equal to it),
 * failing with the list of routes no client test reached. A run of only some client files
 * cannot judge coverage and says so.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { replySchemas } from '../../client/src/generated/schemas.js';
import { backend } from '../helpers/store.js';
import { reached } from './harness.js';

/** Routes no client test calls, each with its reason: operator probes and the devnet's own controls, not the market's contract. */
const DEVNET = 'devnet control (the test chain\'s faucet, miner and clock), served only with CHAIN=devnet: not a market route an integrator calls';
const PROBE = 'an orchestrator\'s liveness/readiness probe, not a market route';
export const EXCLUDED: Record<string, string> = {
  'GET /healthz': PROBE,
  'GET /readyz': PROBE,
  'GET /devnet/addresses/{address}/utxos': DEVNET,
  'POST /devnet/assets': DEVNET,
  'POST /devnet/credit': DEVNET,
  'POST /devnet/faucet': DEVNET,
  'POST /devnet/mempool/drop': DEVNET,
  'POST /devnet/mine': DEVNET,
  'POST /devnet/reorg': DEVNET,
  'POST /devnet/sync': DEVNET,
  'POST /devnet/transfer-issuance': DEVNET,
};

/**
 * Routes of the market no client test drives yet (none since issue 16). The check requires the
 * missing routes to be exactly these, so a route added without a client test fails it, and one
 * that gains a test must leave the list.
 */
export const NOT_YET_DRIVEN: readonly string[] = [];

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The client test files that record (generated.test.ts drives no route). */
const recorders = () => fs.readdirSync(HERE).filter((f) => f.endsWith('.test.ts') && f !== 'generated.test.ts').sort();

/** This run: the runner process (with its start time, so a reused pid is another run) and the backend. */
function runDir(): string {
  let start = '';
  try {
    start = fs.readFileSync(`/proc/${process.ppid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
  } catch {
    // Not Linux: the pid alone.
  }
  return path.join(os.tmpdir(), 'cpmkt-client-routes', `${backend}-${process.ppid}-${start}`);
}

/** The client test files the runner was given, when it can be told (Linux); else all of them. */
function filesInRun(): string[] {
  try {
    const args = fs.readFileSync(`/proc/${process.ppid}/cmdline`, 'utf8').split('\0');
    const named = args.filter((a) => a.endsWith('.test.ts')).map((a) => path.resolve(a));
    if (named.length) return recorders().filter((f) => named.includes(path.join(HERE, f)));
  } catch {
    // Not Linux: assume the whole folder runs.
  }
  return recorders();
}

/** Every route of the document, and those missing from `seen` (less the excluded ones). */
export function uncovered(seen: Set<string>): { routes: string[]; missing: string[] } {
  const routes = Object.keys(replySchemas).sort();
  return { routes, missing: routes.filter((r) => !seen.has(r) && !EXCLUDED[r]) };
}

export function routeCoverage(fileUrl: string): void {
  const name = path.basename(fileURLToPath(fileUrl));
  void it('route coverage: the union of every client test file\'s routes covers the served document', (t) => {
    const dir = runDir();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify([...reached].sort()));
    const inRun = filesInRun();
    const written = inRun.filter((f) => fs.existsSync(path.join(dir, `${f}.json`)));
    if (inRun.length < recorders().length || written.length < inRun.length) {
      t.diagnostic(`recorded ${reached.size} routes; ${inRun.length < recorders().length ? 'only some client files run: coverage is judged on a run of all of them' : `${inRun.length - written.length} client files still running: the last one checks`}`);
      return;
    }
    const seen = new Set(written.flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, `${f}.json`), 'utf8')) as string[]));
    const { routes, missing } = uncovered(seen);
    assert.ok(routes.length > 50, `the document lists ${routes.length} routes`);
    for (const k of Object.keys(EXCLUDED)) assert.ok(routes.includes(k), `excluded ${k} is no route of the document`);
    t.diagnostic(`${seen.size} routes reached by ${written.length} files, ${Object.keys(EXCLUDED).length} excluded, ${NOT_YET_DRIVEN.length} not yet driven, of ${routes.length}`);
    const unexpected = missing.filter((r) => !NOT_YET_DRIVEN.includes(r));
    assert.deepEqual(unexpected, [], `routes no client test reaches:\n${unexpected.join('\n')}`);
    const nowDriven = NOT_YET_DRIVEN.filter((r) => !missing.includes(r));
    assert.deepEqual(nowDriven, [], `driven now: take them off NOT_YET_DRIVEN:\n${nowDriven.join('\n')}`);
  });
}
