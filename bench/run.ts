/**
 * `npm run bench`: requests per second and latency percentiles of the API
 * beside a bare node:http JSON server measured in the same run, and signature
 * verifications per second. Loopback only; every load is bounded in time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { bootstrap } from '../src/bootstrap.js';
import { buildApp } from '../src/app.js';
import { startBaseline } from './baseline.js';
import { load, printTable, type LoadResult } from './http-load.js';
import { verificationBenchmarks } from './verify.js';
import { marketScenarios } from './market.js';
import { time } from './book.js';
import { cartCompletionBench } from './checkout.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CARTS = Number(process.env.BENCH_CARTS ?? 10);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-bench-'));
  const config = loadConfig({ DATABASE_URL: `sqlite:${path.join(dir, 'bench.sqlite')}`, LOG_LEVEL: 'silent', SEED_DEMO: 'false' });
  const boot = await bootstrap(config, { logger: pino({ level: 'silent' }) });
  const app = await buildApp(boot.ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const api = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const baseline = await startBaseline();

  console.log(`# HTTP (${SECONDS}s each, 32 connections, loopback, ${os.cpus().length} cores)\n`);
  const base = await load('bare node:http JSON (baseline)', { url: baseline.url, seconds: SECONDS });
  const rows: LoadResult[] = [base];
  rows.push(await load('GET /healthz', { url: `${api}/healthz`, seconds: SECONDS }));
  rows.push(await load('GET /v1/fee-rate (shared cache hit)', { url: `${api}/v1/fee-rate`, seconds: SECONDS }));
  const market = await marketScenarios(boot.ctx, api);
  for (const s of market.scenarios) rows.push(await load(s.name, { ...s, seconds: SECONDS }));
  printTable(
    rows.map((r) => ({
      scenario: r.name,
      'req/s': r.rps,
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      'vs baseline': `${((r.rps / base.rps) * 100).toFixed(1)}%`,
      'non-2xx': r.non2xx,
      errors: r.errors,
    })),
  );

  console.log('\n# Market reads without the cache (in-process, sequential)\n');
  printTable(market.uncached.map((t) => ({ build: t.name, 'per second': t.per_second, 'p50 ms': t.p50, 'p99 ms': t.p99 })));

  // One request at a time over HTTP: the completion is sequential work, so it sits beside a
  // sequential baseline (the same bare node:http server, one connection).
  console.log(`\n# Checkout completion of ${CARTS} carts of 10 lines, one at a time over HTTP (devnet, real keys)\n`);
  const seqBase = await time('bare node:http JSON (baseline, sequential)', 300, async () => (await fetch(baseline.url)).json());
  const carts = await cartCompletionBench(boot.ctx, api, CARTS, 10);
  printTable(
    [
      { scenario: seqBase.name, 'per second': seqBase.per_second, 'p50 ms': seqBase.p50, 'p99 ms': seqBase.p99 },
      { scenario: 'POST /v1/checkout/quotes/{id}/complete (10 lines)', 'per second': carts.per_second, 'p50 ms': carts.p50, 'p99 ms': carts.p99 },
    ].map((r) => ({ ...r, 'vs baseline': `${((r['per second'] / seqBase.per_second) * 100).toFixed(2)}%` })),
  );

  console.log('\n# Signature verification (one core)\n');
  printTable(verificationBenchmarks().map((v) => ({ verification: v.name, 'per second': v.per_second, 'µs each': v.us_each })));

  await baseline.close();
  await app.close();
  await boot.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
