/**
 * `GET /metrics` in the Prometheus text format (prom-client), one registry per app (no global
 * state): requests and latencies by route template, limiter refusals by class, cache hits
 * answered in front of the framework, the journal's settlements by state, the indexer's lag
 * behind the chain tip, which singleton roles this instance leads, and the process's own figures.
 * Scrape-time gauges read the store and the chain when asked, never on the request path; webhook
 * deliveries are counted in the store. `METRICS_TOKEN`, when set, is required as a bearer
 * token (the figures are operational, not secret, but an operator may want them private).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Context } from '../context.js';

export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route'>;
  readonly refusals: Counter<'class'>;
  /** Open event streams on this instance (set by the stream hub, src/events/stream-hub.ts). */
  readonly streamClients: Gauge;

  constructor(
    ctx: Pick<Context, 'store' | 'indexer' | 'chain' | 'leadership'>,
    /** Hits answered by the cache front door so far, read at scrape time (the door counts them in a plain number). */
    frontDoorHits: () => number = () => 0,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'market_http_requests_total', help: 'HTTP requests answered by the framework, by route template and status', labelNames: ['method', 'route', 'status'], registers });
    this.duration = new Histogram({
      name: 'market_http_request_duration_seconds',
      help: 'Time to answer, by route template',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.refusals = new Counter({ name: 'market_limiter_refusals_total', help: 'Requests refused by the rate limiter (429), by limit class', labelNames: ['class'], registers });
    this.streamClients = new Gauge({ name: 'market_stream_clients', help: 'Server-Sent Events streams open on this instance', registers });
    new Counter({
      name: 'market_cache_front_door_hits_total',
      help: 'Public reads answered from the response cache in front of the framework',
      registers,
      collect() {
        this.reset();
        this.inc(frontDoorHits());
      },
    });
    new Gauge({
      name: 'market_settlements',
      help: 'Journaled settlements by state',
      labelNames: ['state'],
      registers,
      async collect() {
        const rows = await ctx.store.db.selectFrom('settlements').select(['state', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('state').execute();
        this.reset();
        for (const r of rows) this.set({ state: r.state }, Number(r.n));
      },
    });
    new Gauge({
      name: 'market_settlements_held',
      help: 'Journaled settlements held after a wait-class refusal (chain_too_long, truc) that recovery relays again until an input confirms (SETTLEMENT_WAIT_HOLD_S); the rest of market_settlements{state="journaled"} wait on an unknown outcome',
      registers,
      async collect() {
        const r = await ctx.store.db.selectFrom('settlements').select((eb) => eb.fn.countAll<number>().as('n')).where('state', '=', 'journaled').where('mempool_reason', 'is not', null).executeTakeFirst();
        this.set(Number(r?.n ?? 0));
      },
    });
    new Counter({
      name: 'market_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (succeeded, failed, timeout, network_error, refused_address, gone), kept in the shared store beside the delivery log: the same on every instance (take max, not sum)',
      labelNames: ['outcome'],
      registers,
      async collect() {
        const rows = await ctx.store.db.selectFrom('webhook_delivery_counts').select(['outcome', 'n']).execute();
        this.reset();
        for (const r of rows) this.inc({ outcome: r.outcome }, Number(r.n));
      },
    });
    new Gauge({
      name: 'market_indexer_lag_blocks',
      help: "Blocks between the chain tip and the indexer's cursor (-1 when the chain cannot be read)",
      registers,
      async collect() {
        try {
          const [tip, cursor] = await Promise.all([ctx.chain.bitcoin.getTip(), ctx.indexer.cursor()]);
          this.set(tip.height - (cursor?.height ?? 0));
        } catch {
          this.set(-1);
        }
      },
    });
    new Gauge({
      name: 'market_leader',
      help: 'Singleton roles (indexer, recovery, …) contended for: 1 where this instance leads the role, 0 where another does',
      labelNames: ['role'],
      registers,
      collect() {
        const held = ctx.leadership.held();
        this.reset();
        for (const role of ctx.leadership.roles()) this.set({ role }, held.has(role) ? 1 : 0);
      },
    });
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's metrics, for routes that report figures of their own (the stream's clients). */
    metrics: Metrics;
  }
}
