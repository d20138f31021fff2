/**
 * Ten thousand viewers (#33): SSE clients on the public stream, held by client processes of their
 * own (bench/stream-viewers.cjs-like source below, forked), one event at a time appended to the
 * log; each event's fan-out time is from its commit to its frame on the LAST client (clocks: one
 * machine, epoch ms with sub-ms precision). `stream_10k_fanout_p99_ms` is the p99 (nearest rank)
 * over the events; `stream_rss_per_client_kb` the server's resident memory grown per connection
 * (after a GC when exposed), and `stream_20k_2i_fanout_p99_ms` the same with two `serve`
 * instances on PostgreSQL, 10,000 clients on each.
 *
 * Each client sends `X-Forwarded-For` with an address of its own (the bench market trusts one
 * proxy hop, as behind a load balancer), so the per-IP stream limit (STREAM_MAX_PER_IP, 20) stays
 * in force and is met by each client alone; the clients connect from 127.0.0.1-127.0.0.8 (bench only)
 * so 20,000 sockets never run short of ephemeral ports on one source address.
 */
import fs from 'node:fs';
import { appendEvent } from '../src/events/append.js';
import { EventLogReader } from '../src/events/log-reader.js';
import type { Db } from '../src/store/db.js';
import { forkScript } from './remote-client.js';
import { ownMarket } from './own-market.js';
import { unreachable } from './stream-cluster.js';
import { crashRig } from '../test/helpers/crash.js';
import { clusterEnv } from '../test/helpers/cluster.js';
import { pgUrl } from '../test/helpers/store.js';

export const FANOUT_P99_BOUND_MS = 500;

const VIEWER = `
const net = require('node:net');
const now = () => performance.timeOrigin + performance.now();
let clients = [];
let target = 0, reached = 0, last = 0, why = '';
process.on('message', (m) => {
  if (m.open) {
    const { host, port, path, count, offset } = m.open;
    let opened = 0, failed = 0, k = 0;
    // In waves of 200 (a crowd arriving, not one SYN flood past the listen backlog).
    const wave = () => {
      const end = Math.min(count, k + 200);
      let pending = end - k;
      const settled = () => {
        if (--pending > 0) return;
        if (k < count) wave();
        else process.send({ opened, failed, why });
      };
      for (; k < end; k++) {
        const n = offset + k;
        const ip = '10.' + (100 + ((n >> 16) & 63)) + '.' + ((n >> 8) & 255) + '.' + (n & 255);
        const s = net.connect({ host, port, localAddress: '127.0.0.' + (1 + (n % 8)) });
        const c = { max: 0, head: false, tail: '', done: false };
        clients.push(c);
        const once = (ok, reason) => { if (c.done) return; c.done = true; if (ok) opened++; else { failed++; why = why || reason; } settled(); };
        s.setNoDelay(true);
        s.on('connect', () => s.write('GET ' + path + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nAccept: text/event-stream\\r\\nX-Forwarded-For: ' + ip + '\\r\\nLast-Event-ID: ' + m.open.from + '\\r\\n\\r\\n'));
        s.setEncoding('latin1');
        s.on('data', (d) => {
          let text = c.tail + d;
          if (!c.head) {
            if (!/^HTTP\\/1\\.1 200/.test(text)) { once(false, text.slice(0, 300)); s.destroy(); return; }
            c.head = true;
            once(true);
          }
          const re = /\\nid: ?(\\d+)/g;
          let hit, max = c.max;
          while ((hit = re.exec(text))) max = Math.max(max, Number(hit[1]));
          c.tail = text.slice(-24);
          if (max > c.max) {
            const before = c.max;
            c.max = max;
            if (target && before < target && max >= target) {
              reached++;
              last = now();
              if (reached === clients.length) process.send({ target, last });
            }
          }
        });
        s.on('error', (e) => once(false, String(e)));
        s.on('close', () => once(false, 'closed before an answer'));
      }
    };
    wave();
  }
  if (m.watch) {
    target = m.watch;
    reached = clients.filter((c) => c.max >= target).length;
    if (reached === clients.length) process.send({ target, last: now() });
  }
});
process.on('disconnect', () => process.exit(0));
`;

interface Viewers {
  /** Opens `count` clients on `url`'s stream from log position `from`. */
  open(url: string, count: number, offset: number, from: number): Promise<{ opened: number; failed: number; why?: string }>;
  /** Resolves with the epoch ms at which the last client saw position `target`. */
  watch(target: number): Promise<number>;
  close(): void;
}

function viewers(): Viewers {
  const { child, close } = forkScript(VIEWER);
  let waiter: { resolve: (m: any) => void; reject: (e: Error) => void } | undefined;
  child.on('message', (m) => waiter?.resolve(m));
  // A viewer process that dies fails the bench instead of leaving it waiting.
  child.on('exit', (code) => waiter?.reject(new Error(`stream viewers exited (${code})`)));
  const next = <T>() => new Promise<T>((resolve, reject) => (waiter = { resolve, reject }));
  return {
    open: async (url, count, offset, from) => {
      const u = new URL(url);
      const p = next<{ opened: number; failed: number; why?: string }>();
      child.send({ open: { host: u.hostname, port: Number(u.port), path: u.pathname + u.search, count, offset, from } });
      return p;
    },
    watch: async (target) => {
      const p = next<{ last: number }>();
      child.send({ watch: target });
      return (await p).last;
    },
    close,
  };
}

const row = (i: number) => ({
  event_id: `ev_fan_${i}`, kind: 'listed', at: 1_700_000_000, reason: null, asset: null, asset_longname: null, collection: null,
  bidder: null, price_sats: 10_000 + i, seller: null, buyer: null, txid: null, fill_kind: null, confirmed_at: null,
});

export interface FanOut {
  clients: number;
  events: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /**
   * The servers' CPU per event's fan-out, ms (user + system over the events' rounds, divided by
   * the events): on a shared machine, the figure a neighbour's load does not inflate much.
   */
  server_cpu_ms_per_event: number | null;
  /** Server RSS grown per connection, KiB (when the server's RSS can be read). */
  rss_per_client_kb: number | null;
  opened: number;
  failed: number;
}

const nearest = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]! * 10) / 10;
};

/** The resident memory of process `pid`, bytes (Linux /proc). */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The CPU time process `pid` has used, ms (Linux /proc, clock ticks of 10 ms). */
export function cpuOf(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** This process's CPU time, ms. */
export const ownCpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/**
 * `perInstance` clients on each of `apis` (one viewer process per instance), then `events`
 * events appended one at a time through `withDb`, each awaited on every client before the next.
 * `serverRss` reads the servers' total resident memory (bytes), before and after connecting;
 * `serverCpu` their total CPU time (ms), before and after the events.
 */
export async function fanOutBench(
  apis: string[], perInstance: number, withDb: <T>(f: (db: Db) => Promise<T>) => Promise<T>, serverRss: () => number | null, serverCpu: () => number | null, events = 30,
): Promise<FanOut> {
  const head = await withDb(async (db) => (await new EventLogReader(db).head()).last);
  const procs = apis.map(() => viewers());
  try {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const rss0 = serverRss();
    let opened = 0;
    let failed = 0;
    const results = await Promise.all(apis.map((api, i) => procs[i]!.open(`${api}/v1/stream/events?kind=listings`, perInstance, i * perInstance, head)));
    for (const r of results) {
      opened += r.opened;
      failed += r.failed;
    }
    if (failed) throw new Error(`stream fan-out: ${failed} of ${apis.length * perInstance} clients refused (${results.map((r) => r.why).filter(Boolean).join('; ')})`);
    await new Promise((r) => setTimeout(r, 500));
    gc?.();
    const rss1 = serverRss();
    const took: number[] = [];
    let pos = head;
    const cpu0 = serverCpu();
    for (let i = 0; i < events; i++) {
      pos += 1;
      const seen = Promise.all(procs.map((p) => p.watch(pos)));
      const t0 = performance.timeOrigin + performance.now();
      await withDb((db) => db.transaction().execute(async (tx) => appendEvent(tx, { event_id: `ev_fan_${head}_${i}`, feed: 'public', kind: 'listed', at: 1_700_000_000, row: row(i) })));
      const lasts = await seen;
      took.push(Math.max(...lasts) - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
    const cpu1 = serverCpu();
    const clients = apis.length * perInstance;
    return {
      clients, events, opened, failed,
      // The 50 ms pauses between events hold no fan-out work.
      server_cpu_ms_per_event: cpu0 !== null && cpu1 !== null ? Math.round(((cpu1 - cpu0) / events) * 10) / 10 : null,
      p50_ms: nearest(took, 0.5), p99_ms: nearest(took, 0.99), max_ms: nearest(took, 1),
      rss_per_client_kb: rss0 !== null && rss1 !== null ? Math.round(((rss1 - rss0) / clients / 1024) * 10) / 10 : null,
    };
  } finally {
    for (const p of procs) p.close();
  }
}

export interface StreamScale {
  one: FanOut;
  /** Two `serve` instances on PostgreSQL, `perInstance` clients on each; or why skipped. */
  two: FanOut | { skipped: string };
}

/** 10,000 clients on one in-process instance (SQLite), then 10,000 on each of two `serve` processes on PostgreSQL. */
export async function streamScaleBench(perInstance = Number(process.env.BENCH_STREAM_CLIENTS ?? 10_000)): Promise<StreamScale> {
  const market = await ownMarket();
  let one: FanOut;
  try {
    one = await fanOutBench([market.api], perInstance, (f) => f(market.ctx.store.db), () => process.memoryUsage().rss, ownCpu);
  } finally {
    await market.close();
  }
  const why = await unreachable(pgUrl);
  if (why) return { one, two: { skipped: `PostgreSQL is not reachable (${why})` } };
  const rig = await crashRig('bench', 'postgres');
  try {
    const env = clusterEnv({ over: { LOG_LEVEL: 'silent' } });
    const a = await rig.market(undefined, env);
    const b = await rig.market(undefined, env);
    const rss = () => {
      const xs = [a, b].map((m) => rssOf(m.proc.pid!));
      return xs.every((x) => x !== null) ? xs.reduce((s, x) => s + x!, 0) : null;
    };
    const cpu = () => {
      const xs = [a, b].map((m) => cpuOf(m.proc.pid!));
      return xs.every((x) => x !== null) ? xs.reduce((s, x) => s + x!, 0) : null;
    };
    const two = await fanOutBench([a.url, b.url], perInstance, (f) => rig.withMarketDb(f), rss, cpu);
    return { one, two };
  } finally {
    await rig.close();
  }
}
