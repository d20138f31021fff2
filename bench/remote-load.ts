/**
 * autocannon in a process of its own, for the server's CPU per answer alone.
 *
 * In `load` (http-load.ts) the load generator shares the bench's process: its pure-JS HTTP parser
 * (http-parser-js) reads every response header, so a server that sends more headers is charged
 * for the client's parsing too. Here the bench process holds only the servers (the app and the
 * bare node:http servers), and `process.cpuUsage()` over the run is theirs. On two cores both
 * sides run near a core each, so requests per second say little; CPU per answer is the figure.
 */
import { createRequire } from 'node:module';
import { forkScript } from './remote-client.js';

const CHILD = (autocannon: string) => `
const autocannon = require(${JSON.stringify(autocannon)});
process.on('message', async (m) => {
  const cpu = process.cpuUsage();
  const r = await autocannon({ url: m.url, duration: m.seconds, connections: 32, pipelining: 1, headers: { 'content-type': 'application/json' } });
  const used = process.cpuUsage(cpu);
  process.send({ rps: Math.round(r.requests.average), total: r.requests.total, errors: r.errors + r.timeouts, non2xx: r.non2xx, clientCpu: used.user + used.system });
});
process.on('disconnect', () => process.exit(0));
`;

export interface RemoteLoadResult {
  name: string;
  rps: number;
  /** CPU of the bench process (the servers) per answered request, µs. */
  serverCpuUs: number;
  /** CPU of the load generator per answered request, µs. */
  clientCpuUs: number;
  /** Share of one core the servers used over the run. */
  serverBusy: number;
  errors: number;
  non2xx: number;
}

export interface RemoteLoader {
  load(name: string, url: string, seconds: number): Promise<RemoteLoadResult>;
  close(): void;
}

export async function remoteLoader(): Promise<RemoteLoader> {
  const { child, close } = forkScript(CHILD(createRequire(import.meta.url).resolve('autocannon')));
  const round = (n: number, places = 1) => Math.round(n * 10 ** places) / 10 ** places;
  return {
    async load(name, url, seconds) {
      const cpu = process.cpuUsage();
      const started = process.hrtime.bigint();
      const r = await new Promise<{ rps: number; total: number; errors: number; non2xx: number; clientCpu: number }>((resolve) => {
        child.once('message', resolve as (m: unknown) => void);
        child.send({ url, seconds });
      });
      const used = process.cpuUsage(cpu);
      const wallUs = Number(process.hrtime.bigint() - started) / 1e3;
      const total = Math.max(1, r.total);
      return {
        name,
        rps: r.rps,
        serverCpuUs: round((used.user + used.system) / total),
        clientCpuUs: round(r.clientCpu / total),
        serverBusy: round((used.user + used.system) / wallUs, 2),
        errors: r.errors,
        non2xx: r.non2xx,
      };
    },
    close,
  };
}
