import autocannon from 'autocannon';

export interface LoadResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /**
   * CPU of this whole process per answered request, µs (the server and the load generator share
   * it): on a shared machine it moves much less with a neighbour's load than requests per second.
   */
  cpuUs: number;
}

/** Drives one URL on loopback for a bounded time with a fixed number of connections. */
export async function load(name: string, opts: { url: string; method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string>; seconds?: number; connections?: number }): Promise<LoadResult> {
  const cpu = process.cpuUsage();
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    body: opts.body,
    headers: { 'content-type': 'application/json', ...(opts.headers ?? {}) },
    duration: opts.seconds ?? 5,
    connections: opts.connections ?? 32,
    pipelining: 1,
  });
  const used = process.cpuUsage(cpu);
  return {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuUs: Math.round(((used.user + used.system) / Math.max(1, result.requests.total)) * 10) / 10,
  };
}

/** Where the tables go: stdout, or stderr under `--json` (stdout then carries the JSON object only). */
export const say: { line: (s: string) => void } = { line: (s) => console.log(s) };

export function printTable(rows: Array<Record<string, string | number>>): void {
  if (!rows.length) return;
  const cols = Object.keys(rows[0]!);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i]!)).join('  ');
  say.line(line(cols));
  say.line(line(width.map((w) => '-'.repeat(w))));
  for (const r of rows) say.line(line(cols.map((c) => String(r[c] ?? ''))));
}
