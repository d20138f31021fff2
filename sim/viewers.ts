/**
 * Viewers: front-ends holding the public push stream (`GET /v1/stream/events`) open all day
 * through the client library's `stream()`, behind the same balancer as the traders, so an
 * instance kill breaks their connection and the client resumes on another instance (or the same
 * one once it is back) with `Last-Event-ID`. Two traders also hold their own address stream
 * (session) the same way. What each receives is checked once the market settled
 * (**stream_mirror**): every entry of its log (public, or the owner's) from where it started, in
 * log order, as the log says it, and nothing the log does not hold.
 */
import { MarketClient, type StreamEvent } from '../client/src/index.js';
import { balancedFetch } from './balancer.js';
import { readLog, type Entry } from './feed-checks.js';
import type { History, Violation } from './history.js';
import type { Check } from './invariants.js';
import type { Rng } from './rng.js';
import type { World } from './world.js';
import type { Trader } from './traders.js';

/** How long a viewer may take to reach the settled log's head. */
const CATCH_UP_MS = 60_000;

/** Where a viewer reads: its stream, and the ordered log that stream must mirror. */
export interface ViewerSource {
  stream(after: number, signal: AbortSignal): AsyncIterable<StreamEvent>;
  log(after: number): Promise<Entry[]>;
}

/** The public stream and log, read through a client of its own (no session). */
export function publicSource(world: World, rng: Rng, history: History, violate: (v: Violation) => void, name: string, n: number): ViewerSource {
  const client = new MarketClient({
    baseUrl: 'http://market.sim',
    network: 'regtest',
    fetch: balancedFetch({ world, rng, actor: name, ip: `10.250.1.${n}`, history, violate }),
    timeoutMs: 20_000,
  });
  return {
    // A viewer keeps trying through a whole instance outage (the client's default gives up after 5 failed connections).
    stream: (after, signal) => client.stream({}, { after, signal, maxReconnects: 1_000 }),
    log: (after) => readLog(async (a) => (await client.http.request<Entry[]>('GET', '/v1/events', { query: { after: a, limit: 100 } })).body as any, after),
  };
}

/** A trader's own stream and owner log, through its signed-in client (a bot watching its own trades). */
export function ownerSource(t: Trader): ViewerSource {
  const path = `/v1/address/${t.address}`;
  return {
    stream: (after, signal) => t.client.addressStream({ after, signal, maxReconnects: 1_000 }),
    log: (after) => readLog(async (a) => (await t.client.http.request<Entry[]>('GET', `${path}/events`, { query: { after: a, limit: 100 } })).body as any, after),
  };
}

export class Viewer {
  readonly got: StreamEvent[] = [];
  /** Why the stream ended before it was stopped, if it did. */
  failure: string | undefined;
  private readonly stop = new AbortController();
  private running: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly source: ViewerSource,
  ) {}

  /** Opens the stream after `after` and keeps it until stopped; reconnecting is the client's. */
  start(after: number): void {
    this.running = (async () => {
      try {
        for await (const e of this.source.stream(after, this.stop.signal)) this.got.push(e);
      } catch (e) {
        if (!this.stop.signal.aborted) this.failure = (e as Error).message;
      }
    })();
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.running;
  }

  log(after: number): Promise<Entry[]> {
    return this.source.log(after);
  }
}

/** The disagreements between what a viewer received and the public log after its start. */
export function compareStream(name: string, log: Entry[], got: Array<{ seq: number; event_id: string; kind: string }>): string[] {
  const out: string[] = [];
  const bySeq = new Map(log.map((e) => [e.seq, e]));
  const head = log.at(-1)?.seq ?? 0;
  // The log keeps an event under its latest seq: a frame received under an earlier seq was news
  // then, and must now be in the log under a later seq with the same event_id.
  const latest = new Map(log.map((e) => [e.event_id, e.seq]));
  const received = new Set(got.map((g) => g.seq));
  const missing = log.filter((e) => !received.has(e.seq)).map((e) => e.seq);
  if (missing.length) out.push(`${name} never received ${missing.length} of the ${log.length} events (seq ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''})`);
  for (const g of got) {
    if (g.seq > head) continue; // after the log read: not judged
    const e = bySeq.get(g.seq);
    if (e && (e.event_id !== g.event_id || e.kind !== g.kind)) out.push(`${name} received seq ${g.seq} as ${g.event_id} (${g.kind}); the log has ${e.event_id} (${e.kind})`);
    if (!e && !((latest.get(g.event_id) ?? -1) > g.seq)) out.push(`${name} received seq ${g.seq} (${g.event_id}, ${g.kind}), which its log neither holds nor carries again later`);
  }
  const back = got.findIndex((g, i) => i > 0 && g.seq <= got[i - 1]!.seq);
  if (back > 0) out.push(`${name} received seq ${got[back]!.seq} after seq ${got[back - 1]!.seq}: not in log order`);
  return out;
}

/** stream_mirror over the run's viewers, each from the position it started after. */
export function streamMirror(viewers: Array<{ viewer: Viewer; after: number }>): Check {
  return {
    name: 'stream_mirror',
    run: async () => {
      const out: Violation[] = [];
      const deadline = Date.now() + CATCH_UP_MS;
      for (const { viewer, after } of viewers) {
        let found: string[] = [];
        for (;;) {
          found = compareStream(viewer.name, await viewer.log(after), viewer.got);
          if (!found.length || viewer.failure || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 1_000));
        }
        if (viewer.failure) found.unshift(`${viewer.name}'s stream ended: ${viewer.failure}`);
        out.push(...found.map((message) => ({ name: 'stream_mirror', message })));
      }
      return out;
    },
  };
}
