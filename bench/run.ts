/**
 * `npm run bench`: requests per second and latency percentiles of the API beside bare node:http
 * servers measured in the same run, the uncached market reads (on SQLite, then on PostgreSQL when
 * it is reachable: bench/book-pg.ts), checkout under contention, the
 * push stream (in process on SQLite, then one and two `serve` processes on PostgreSQL when it is
 * reachable: bench/stream-cluster.ts), the indexer, and signature checks beside the libraries'
 * bare curve calls.
 *
 * `npm run -s bench -- --json` prints the same tables on stderr and ONE JSON object on stdout
 * with every figure named, each peer measured in this same process run. Loopback only; every
 * load is bounded in time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { bootstrap } from '../src/bootstrap.js';
import { buildApp } from '../src/app.js';
import { startBaseline, startBare } from './baseline.js';
import { load, printTable, say, type LoadResult } from './http-load.js';
import { remoteLoader, type RemoteLoader, type RemoteLoadResult } from './remote-load.js';
import { signatureFigures, verificationBenchmarks } from './verify.js';
import { marketScenarios } from './market.js';
import { time } from './book.js';
import { cartCompletionBench } from './checkout.js';
import { bidFlowBench, offerBookTiming } from './offers.js';
import { raceBench } from './race.js';
import { indexerBench } from './indexer.js';
import { streamBench } from './stream.js';
import { clusterStreamBench } from './stream-cluster.js';
import { STALE_AFTER_TRADE_BOUND_MS } from './stale-after-trade.js';
import { pgBookBench } from './book-pg.js';
import { rssProdPart, scaleReadBench } from './scale-read.js';
import { scaleLiveBench, SCALE_LIVE_PARTS } from './scale-live.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CARTS = Number(process.env.BENCH_CARTS ?? 10);
const RACERS = Number(process.env.BENCH_RACERS ?? 200);
const JSON_OUT = process.argv.includes('--json');
if (JSON_OUT) say.line = (s) => process.stderr.write(s + '\n');
/** `--only <group>`: just that group's figures (the groups: GROUPS). */
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
/** The groups `--only` can name, each run after the main figures in a full run. */
const GROUPS: Record<string, () => Promise<Record<string, number | string | boolean>>> = {
  'scale-live': scaleLiveBench,
  'scale-read': scaleReadBench,
};
/** Parts of a group, runnable alone with `--only` (not run again in a full run). */
const PARTS: Record<string, () => Promise<Record<string, number | string | boolean>>> = { ...SCALE_LIVE_PARTS, 'rss-prod': rssProdPart };

/** The whole process's peak resident memory so far (getrusage), MB. */
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function only(group: string) {
  const run = GROUPS[group] ?? PARTS[group];
  if (!run) throw new Error(`--only ${group}: no such group (${[...Object.keys(GROUPS), ...Object.keys(PARTS)].join(', ')})`);
  const figures: Record<string, number | string | boolean> = { load_average_1m: Math.round(os.loadavg()[0]! * 100) / 100 };
  say.line(`\n# ${group}\n`);
  Object.assign(figures, await run());
  figures.rss_peak_bench_mb = peakRssMb();
  figures.load_average_1m_end = Math.round(os.loadavg()[0]! * 100) / 100;
  if (JSON_OUT) process.stdout.write(JSON.stringify(figures) + '\n');
}


async function main() {
  if (ONLY) return only(ONLY);
  const figures: Record<string, number | string | boolean> = {};
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-bench-'));
  // One trusted proxy hop: the race gives each of its buyers an address of its own.
  const config = loadConfig({ DATABASE_URL: `sqlite:${path.join(dir, 'bench.sqlite')}`, LOG_LEVEL: 'silent', SEED_DEMO: 'false', TRUST_PROXY_HOPS: '1' });
  const boot = await bootstrap(config, { logger: pino({ level: 'silent' }) });
  const app = await buildApp(boot.ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const api = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const baseline = await startBaseline();
  figures.cores = os.cpus().length;
  // Resident memory of this process (the server, plus the bench's own client and seeded data):
  // idle once booted and listening, and the peak while the loads below run.
  global.gc?.();
  figures.rss_idle_mb = Math.round(process.memoryUsage().rss / 2 ** 20);
  let rssPeak = 0;
  const rssSampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);
  figures.load_average_1m = Math.round(os.loadavg()[0]! * 100) / 100;

  say.line(`# HTTP (${SECONDS}s each, 32 connections, loopback, ${os.cpus().length} cores)\n`);
  const base = await load('bare node:http JSON (baseline)', { url: baseline.url, seconds: SECONDS });
  const rows: LoadResult[] = [base];
  rows.push(await load('GET /healthz', { url: `${api}/healthz`, seconds: SECONDS }));
  rows.push(await load('GET /v1/fee-rate (shared cache hit)', { url: `${api}/v1/fee-rate`, seconds: SECONDS }));
  const market = await marketScenarios(boot.ctx, api);
  for (const s of market.scenarios) rows.push(await load(s.name, { ...s, seconds: SECONDS }));
  // Cache hits beside bare node:http servers sending the same body, with
  //  - `same`: every header of the hit too (etag, x-cache, vary, x-request-id, …), fixed: the very
  //    bytes of the hit, the yardstick ("a bare node:http server sending the same bytes")
  //    and `cached_vs_bare`'s, so the gap to it is the door's own work (until 2026-11-26,
  //    `cached_vs_bare_same_headers`);
  //  - `spec`: only the headers the spec requires of a public read (content type and length, and
  //    the Cache-Control of its edge freshness): `cached_vs_bare_spec_headers` (until 2026-11-26,
  //    `cached_vs_bare`), which also charges the door for the bytes of the headers it adds;
  //  - `minimal`: content type and length only (the yardstick before 2026-11-25).
  // Alternated twice, the better of each kept, so a neighbour's burst on this shared machine does
  // not pick the winner.
  // Then, for the small body, the same three servers' CPU per answer with the load generator in a
  // process of its own (remote-load.ts): the servers' work alone, not the client's parsing.
  const pair = async (label: string, url: string, remote?: RemoteLoader) => {
    const first = await fetch(url);
    const body = await first.text();
    const hit = await fetch(url);
    await hit.text();
    const perConnection = new Set(['date', 'connection', 'keep-alive', 'content-type', 'content-length', 'transfer-encoding']);
    const hitHeaders = [...hit.headers].filter(([name]) => !perConnection.has(name)).flat();
    const contentType = first.headers.get('content-type') ?? 'application/json';
    const bares = {
      spec: await startBare(body, contentType, ['cache-control', hit.headers.get('cache-control') ?? 'public, max-age=30']),
      minimal: await startBare(body, contentType),
      same: await startBare(body, contentType, hitHeaders),
    };
    const names = { same: "with every header of the hit (the same bytes)", spec: "with the spec's headers only", minimal: 'with content headers only' };
    const runs: Record<'spec' | 'minimal' | 'same' | 'cached', LoadResult[]> = { spec: [], minimal: [], same: [], cached: [] };
    for (let k = 0; k < 2; k++) {
      for (const kind of ['same', 'spec', 'minimal'] as const) {
        runs[kind].push(await load(`bare node:http, the body of ${label} ${names[kind]}`, { url: bares[kind].url, seconds: SECONDS }));
      }
      runs.cached.push(await load(`GET ${label}, cache hit`, { url, seconds: SECONDS }));
    }
    const served: Record<'spec' | 'minimal' | 'same' | 'cached', RemoteLoadResult[]> = { spec: [], minimal: [], same: [], cached: [] };
    for (let k = 0; remote && k < 2; k++) {
      for (const kind of ['same', 'spec', 'minimal'] as const) {
        served[kind].push(await remote.load(`bare node:http, the body of ${label} ${names[kind]}, client in its own process`, bares[kind].url, SECONDS));
      }
      served.cached.push(await remote.load(`GET ${label}, cache hit, client in its own process`, url, SECONDS));
    }
    for (const b of Object.values(bares)) await b.close();
    // The better of each: the higher rate, and the lower CPU per request.
    const best = (rs: LoadResult[]) => ({ ...rs.reduce((a, b) => (b.rps > a.rps ? b : a)), cpuUs: Math.min(...rs.map((r) => r.cpuUs)) });
    const leanest = (rs: RemoteLoadResult[]) => (rs.length ? rs.reduce((a, b) => (b.serverCpuUs < a.serverCpuUs ? b : a)) : undefined);
    return {
      spec: best(runs.spec),
      minimal: best(runs.minimal),
      same: best(runs.same),
      cached: best(runs.cached),
      served: { spec: leanest(served.spec), minimal: leanest(served.minimal), same: leanest(served.same), cached: leanest(served.cached) },
      bytes: Buffer.byteLength(body),
    };
  };
  const ratio = (a: LoadResult, b: LoadResult) => Math.round((a.rps / b.rps) * 1000) / 1000;
  const remote = await remoteLoader();
  const small = await pair('/v1/fee-rate', `${api}/v1/fee-rate`, remote);
  remote.close();
  const big = await pair('the 10,000-listing book', market.scenarios[0]!.url);
  rows.push(small.same, small.spec, small.minimal, small.cached, big.same, big.spec, big.minimal, big.cached);
  figures.bare_json_rps = base.rps;
  figures.cached_read_rps = small.cached.rps;
  figures.bare_same_bytes_rps = small.same.rps;
  figures.cached_vs_bare = ratio(small.cached, small.same);
  figures.bare_spec_headers_rps = small.spec.rps;
  figures.cached_vs_bare_spec_headers = ratio(small.cached, small.spec);
  figures.bare_minimal_rps = small.minimal.rps;
  figures.cached_vs_bare_minimal = ratio(small.cached, small.minimal);
  // The same comparisons in CPU per request (server and load generator in this one process): bare / cached.
  const cpuRatio = (a: LoadResult, b: LoadResult) => Math.round((b.cpuUs / a.cpuUs) * 1000) / 1000;
  figures.cached_read_cpu_us = small.cached.cpuUs;
  figures.bare_same_bytes_cpu_us = small.same.cpuUs;
  figures.cached_vs_bare_cpu = cpuRatio(small.cached, small.same);
  figures.cached_vs_bare_spec_headers_cpu = cpuRatio(small.cached, small.spec);
  figures.cached_vs_bare_minimal_cpu = cpuRatio(small.cached, small.minimal);
  figures.book_cached_vs_bare_cpu = cpuRatio(big.cached, big.same);
  figures.cached_read_bytes = small.bytes;
  figures.book_cached_rps = big.cached.rps;
  figures.book_bare_same_bytes_rps = big.same.rps;
  figures.book_cached_vs_bare = ratio(big.cached, big.same);
  figures.book_cached_vs_bare_spec_headers = ratio(big.cached, big.spec);
  figures.book_cached_vs_bare_minimal = ratio(big.cached, big.minimal);
  figures.book_cached_bytes = big.bytes;
  figures.cached_read_errors = small.cached.errors + small.cached.non2xx + big.cached.errors + big.cached.non2xx;
  // The servers' CPU per answer alone (bare ÷ cached), the load generator in its own process.
  const sv = small.served;
  if (sv.spec && sv.minimal && sv.same && sv.cached) {
    const serverRatio = (bare: RemoteLoadResult) => Math.round((bare.serverCpuUs / sv.cached!.serverCpuUs) * 1000) / 1000;
    figures.cached_read_server_cpu_us = sv.cached.serverCpuUs;
    figures.bare_same_bytes_server_cpu_us = sv.same.serverCpuUs;
    figures.cached_vs_bare_server_cpu = serverRatio(sv.same);
    figures.cached_vs_bare_spec_headers_server_cpu = serverRatio(sv.spec);
    figures.cached_vs_bare_minimal_server_cpu = serverRatio(sv.minimal);
    figures.cached_read_remote_errors = sv.cached.errors + sv.cached.non2xx;
  }
  printTable(
    rows.map((r) => ({
      scenario: r.name,
      'req/s': r.rps,
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      'cpu µs each': r.cpuUs,
      'vs baseline': `${((r.rps / base.rps) * 100).toFixed(1)}%`,
      'non-2xx': r.non2xx,
      errors: r.errors,
    })),
  );
  const servedRows = [sv.same, sv.spec, sv.minimal, sv.cached].filter((r) => r !== undefined);
  if (servedRows.length) {
    say.line('\n# The same cache hit and bare servers, the load generator in a process of its own (server CPU per answer)\n');
    printTable(
      servedRows.map((r) => ({
        scenario: r.name,
        'req/s': r.rps,
        'server cpu µs each': r.serverCpuUs,
        'server busy (cores)': r.serverBusy,
        'client cpu µs each': r.clientCpuUs,
        'non-2xx': r.non2xx,
        errors: r.errors,
      })),
    );
  }

  say.line('\n# Market reads without the cache (in-process, sequential)\n');
  printTable(market.uncached.map((t) => ({ build: t.name, 'per second': t.per_second, 'p50 ms': t.p50, 'p99 ms': t.p99, 'cpu ms each': t.cpu_ms })));
  const [book, flat, targets, trait] = market.uncached;
  figures.book_uncached_p50_ms = book!.p50;
  figures.book_uncached_p99_ms = book!.p99;
  figures.book_uncached_cpu_ms = book!.cpu_ms;
  figures.book_flat_uncached_p50_ms = flat!.p50;
  figures.offer_targets_p50_ms = targets!.p50;
  figures.offer_targets_trait_p50_ms = trait!.p50;

  // One request at a time over HTTP: the completion is sequential work, so it sits beside a
  // sequential baseline (the same bare node:http server, one connection).
  say.line(`\n# Checkout completion of ${CARTS} carts of 10 lines, one at a time over HTTP (devnet, real keys)\n`);
  const seqBase = await time('bare node:http JSON (baseline, sequential)', 300, async () => (await fetch(baseline.url)).json());
  const carts = await cartCompletionBench(boot.ctx, api, CARTS, 10);
  printTable(
    [
      { scenario: seqBase.name, 'per second': seqBase.per_second, 'p50 ms': seqBase.p50, 'p99 ms': seqBase.p99, 'server cpu ms p50': '' },
      { scenario: 'POST /v1/checkout/quotes/{id}/complete (10 lines)', 'per second': carts.per_second, 'p50 ms': carts.p50, 'p99 ms': carts.p99, 'server cpu ms p50': `${carts.cpu_p50} (+ devnet ${carts.devnet_cpu_p50})` },
    ].map((r) => ({ ...r, 'vs baseline': `${((r['per second'] / seqBase.per_second) * 100).toFixed(2)}%` })),
  );
  figures.cart10_p50_ms = carts.p50;
  figures.cart10_cpu_ms = carts.cpu_p50;
  figures.cart10_devnet_cpu_ms = carts.devnet_cpu_p50;

  say.line(`\n# ${RACERS} buyers complete quotes of the same listing at once (HTTP, real keys)\n`);
  const race = await raceBench(boot.ctx, api, RACERS);
  printTable([{ buyers: race.buyers, winners: race.winners, '409 checkout_changed': race.conflicts, other: race.others, 'first ms': race.first_ms, 'last ms': race.last_ms }]);
  figures.race200_last_ms = race.last_ms;
  figures.race200_winners = race.winners;
  figures.race200_conflicts = race.conflicts;
  figures.race200_other = race.others;
  clearInterval(rssSampler);
  figures.rss_loaded_peak_mb = Math.round(rssPeak / 2 ** 20);

  say.line('\n# Bids (devnet, real keys; the book in process without the cache)\n');
  const offerBook = await offerBookTiming(boot.ctx.store.db);
  const bids = await bidFlowBench(boot.ctx, api);
  printTable([
    { measure: seqBase.name, 'p50 ms': seqBase.p50, 'p99 ms': seqBase.p99 },
    { measure: `${offerBook.name} (${offerBook.cpu_ms} ms CPU each)`, 'p50 ms': offerBook.p50, 'p99 ms': offerBook.p99 },
    { measure: 'POST /v1/funded-offers: 20 slots x 50 targets (1,000 offers), relay and place', 'p50 ms': bids.placement_1000_ms, 'p99 ms': '' },
    { measure: 'POST /v1/exact-offer-authorizations/{id}/accept with a CPFP child (verify, claim, journal, submitpackage)', 'p50 ms': bids.accept_cpfp_ms, 'p99 ms': '' },
  ]);
  figures.book_with_offers_uncached_p50_ms = offerBook.p50;
  figures.book_with_offers_uncached_p99_ms = offerBook.p99;
  figures.book_with_offers_uncached_cpu_ms = offerBook.cpu_ms;
  figures.offer_placement_1000_ms = bids.placement_1000_ms;
  figures.exact_accept_cpfp_ms = bids.accept_cpfp_ms;
  figures.sequential_baseline_p50_ms = seqBase.p50;

  say.line('\n# The book and offer targets on PostgreSQL (in process without the cache, a fresh schema)\n');
  const pgBook = await pgBookBench();
  if ('skipped' in pgBook) {
    say.line(`skipped: ${pgBook.skipped}`);
    figures.book_pg_skipped = pgBook.skipped;
  } else {
    printTable([pgBook.book, pgBook.trait, pgBook.withOffers].map((t) => ({ build: t.name, 'per second': t.per_second, 'p50 ms': t.p50, 'p99 ms': t.p99, 'cpu ms each': t.cpu_ms })));
    figures.book_uncached_p50_ms_pg = pgBook.book.p50;
    figures.book_uncached_p99_ms_pg = pgBook.book.p99;
    figures.offer_targets_trait_p50_ms_pg = pgBook.trait.p50;
    figures.book_with_offers_uncached_p50_ms_pg = pgBook.withOffers.p50;
    figures.book_with_offers_uncached_p99_ms_pg = pgBook.withOffers.p99;
    figures.book_with_offers_uncached_cpu_ms_pg = pgBook.withOffers.cpu_ms;
  }

  say.line('\n# Push stream: GET /v1/stream/events (one instance, SSE over loopback)\n');
  const stream = await streamBench(boot.ctx, api);
  printTable([
    { measure: `${stream.events} events to ${stream.clients} clients`, 'events/s': stream.events_per_s, 'frames/s': stream.frames_per_s, ms: '' },
    { measure: `checkout completion sent → its sale frame on a client (p50 of ${stream.checkouts})`, 'events/s': '', 'frames/s': '', ms: stream.checkout_to_frame_p50_ms },
    { measure: 'the same, slowest', 'events/s': '', 'frames/s': '', ms: stream.checkout_to_frame_max_ms },
  ]);
  figures.stream_events_per_s_100_clients = stream.events_per_s;
  figures.stream_frames_per_s_100_clients = stream.frames_per_s;
  figures.stream_checkout_to_frame_ms = stream.checkout_to_frame_p50_ms;
  figures.stream_checkout_to_frame_max_ms = stream.checkout_to_frame_max_ms;

  say.line('\n# Push stream on PostgreSQL: one and two instances (`serve` processes, one standalone devnet)\n');
  const cluster = await clusterStreamBench();
  if ('skipped' in cluster) {
    say.line(`skipped: ${cluster.skipped}`);
    figures.stream_cluster_skipped = cluster.skipped;
  } else {
    const rowsOf = (label: string, f: typeof cluster.one) => [
      { measure: `${label}: ${cluster.events} events to ${cluster.clients} clients`, 'events/s': f.events_per_s, 'frames/s': f.frames_per_s, ms: '' },
      { measure: `${label}: checkout completion → its sale frame (p50 of ${cluster.checkouts})`, 'events/s': '', 'frames/s': '', ms: f.checkout_to_frame_p50_ms },
      { measure: `${label}: the same, slowest`, 'events/s': '', 'frames/s': '', ms: f.checkout_to_frame_max_ms },
    ];
    printTable([...rowsOf('one instance (A)', cluster.one), ...rowsOf('two instances (clients on A and B; checkout on B, client on A)', cluster.two)]);
    for (const [suffix, f] of [['pg_1i', cluster.one], ['2i', cluster.two]] as const) {
      figures[`stream_events_per_s_100_clients_${suffix}`] = f.events_per_s;
      figures[`stream_frames_per_s_100_clients_${suffix}`] = f.frames_per_s;
      figures[`stream_checkout_to_frame_ms_${suffix}`] = f.checkout_to_frame_p50_ms;
      figures[`stream_checkout_to_frame_max_ms_${suffix}`] = f.checkout_to_frame_max_ms;
    }
    const st = cluster.stale;
    say.line(`\n# Fresh reads after a trade: a collection's book cached on instance B, the cheapest listing bought on A (${st.trades} trades)\n`);
    printTable([
      { measure: 'completion answered → B no longer shows the listing, p50', ms: st.p50_ms, bound: '' },
      { measure: 'the same, p99 (stale_after_trade_ms)', ms: st.p99_ms, bound: `< ${STALE_AFTER_TRADE_BOUND_MS}` },
      { measure: 'the same, slowest', ms: st.max_ms, bound: '' },
      { measure: 'completion sent → B no longer shows it, p99', ms: st.from_send_p99_ms, bound: '' },
    ]);
    figures.stale_after_trade_ms = st.p99_ms;
    figures.stale_after_trade_bound_ms = STALE_AFTER_TRADE_BOUND_MS;
    figures.stale_after_trade_p50_ms = st.p50_ms;
    figures.stale_after_trade_max_ms = st.max_ms;
    figures.stale_after_trade_from_send_p99_ms = st.from_send_p99_ms;
  }

  say.line('\n# Indexer: one block of 2,000 payments\n');
  const idx = await indexerBench(boot.ctx);
  printTable([{ block: `${idx.txs} transactions`, ms: idx.ms, 'tx/s': idx.tx_per_s, 'cpu ms': idx.cpu_ms, 'tx per cpu-s': idx.tx_per_cpu_s }]);
  figures.indexer_tx_per_s = idx.tx_per_s;
  figures.indexer_cpu_ms = idx.cpu_ms;
  figures.indexer_tx_per_cpu_s = idx.tx_per_cpu_s;

  say.line('\n# Signature verification (one core)\n');
  const sig = signatureFigures();
  printTable([...sig.rows, ...verificationBenchmarks()].map((v) => ({ verification: v.name, 'per second': v.per_second, 'µs each': v.us_each })));
  Object.assign(figures, sig.figures);

  for (const [name, group] of Object.entries(GROUPS)) {
    say.line(`\n# ${name}\n`);
    Object.assign(figures, await group());
  }
  figures.rss_peak_bench_mb = peakRssMb();
  figures.load_average_1m_end = Math.round(os.loadavg()[0]! * 100) / 100;

  await baseline.close();
  await app.close();
  await boot.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (JSON_OUT) process.stdout.write(JSON.stringify(figures) + '\n');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
