/**
 * The push stream on PostgreSQL, with one and with two instances (#17): real `serve` processes
 * on one fresh schema beside one standalone devnet (test/helpers/crash.ts's rig, as the cluster
 * tests start them). Events per second to 100 SSE clients (all on instance A, then split over A
 * and B: every commit reaches B through PostgreSQL LISTEN/NOTIFY), and the latency from a
 * checkout completion to its `sale` frame on a client of A, the checkout completed on A (one
 * instance) and on B (two instances). Skipped, with the reason, when PostgreSQL is not reachable.
 */
import pg from 'pg';
import { call, crashRig, type CrashRig, type Market } from '../test/helpers/crash.js';
import { clusterEnv } from '../test/helpers/cluster.js';
import { pgUrl } from '../test/helpers/store.js';
import { openSse } from '../test/helpers/sse.js';
import { makeWallet } from '../test/helpers/wallets.js';
import { EventLogReader } from '../src/events/log-reader.js';
import { ipOf, medianAndMax, streamThroughput, type Throughput } from './stream.js';
import { staleAfterTrade, type StaleAfterTrade } from './stale-after-trade.js';

export interface ClusterStreamFigures extends Throughput {
  checkout_to_frame_p50_ms: number;
  checkout_to_frame_max_ms: number;
}

export type ClusterStreamResult =
  | { skipped: string }
  | { clients: number; events: number; checkouts: number; one: ClusterStreamFigures; two: ClusterStreamFigures; stale: StaleAfterTrade };

/** Why PostgreSQL cannot be used (null when it can). */
export async function unreachable(url: string): Promise<string | null> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await c.connect();
    await c.query('select 1');
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function clusterStreamBench(clients = 100, events = 5_000, checkouts = 5): Promise<ClusterStreamResult> {
  const why = await unreachable(pgUrl);
  if (why) return { skipped: `PostgreSQL at ${pgUrl.replace(/\/\/[^@]*@/, '//')} is not reachable (${why})` };
  const rig = await crashRig('bench', 'postgres');
  try {
    const env = clusterEnv({ over: { LOG_LEVEL: 'silent' } });
    const a = await rig.market(undefined, env);
    const one = await measure(rig, [a], a, a, clients, events, checkouts, 'one');
    const b = await rig.market(undefined, env);
    const two = await measure(rig, [a, b], a, b, clients, events, checkouts, 'two');
    // Fresh reads after a trade: the book read on B, the trade on A.
    const stale = await staleAfterTrade(rig, b, a);
    return { clients, events, checkouts, one, two, stale };
  } finally {
    await rig.close();
  }
}

async function measure(rig: CrashRig, streams: Market[], watch: Market, via: Market, clients: number, events: number, checkouts: number, tag: string): Promise<ClusterStreamFigures> {
  const flow = await rig.withMarketDb((db) => streamThroughput(db, streams.map((m) => m.url), clients, events));
  const { p50, max } = medianAndMax(await checkoutToFrame(rig, watch, via, checkouts, tag));
  return { ...flow, checkout_to_frame_p50_ms: p50, checkout_to_frame_max_ms: max };
}

/** Checkouts completed on `via`, one at a time, each timed from sending the completion to its sale frame on a client of `watch`. */
async function checkoutToFrame(rig: CrashRig, watch: Market, via: Market, n: number, tag: string): Promise<number[]> {
  const seller = makeWallet('p2wpkh', `bench-cluster-seller-${tag}`);
  const listings: string[] = [];
  for (let k = 0; k < n; k++) listings.push((await rig.listedUnit(via, seller, 30_000 + k)).listingId);
  const took: number[] = [];
  for (const [k, id] of listings.entries()) {
    const { q, token, signed } = await rig.signedQuote(via, id, makeWallet('p2wpkh', `bench-cluster-buyer-${tag}-${k}`), makeWallet('p2wpkh', `bench-cluster-dest-${tag}-${k}`));
    const head = (await rig.withMarketDb((db) => new EventLogReader(db).head())).last;
    let frameAt = 0;
    let seen!: () => void;
    const got = new Promise<void>((resolve) => (seen = resolve));
    const sse = await openSse(`${watch.url}/v1/stream/events?kind=sales`, { 'x-forwarded-for': ipOf(950 + k), 'last-event-id': String(head) }, (f, c) => {
      if (f.event !== 'sale' || f.data.txid !== q.expected_txid) return;
      frameAt = performance.now();
      c.close();
      seen();
    });
    if (sse.status !== 200) throw new Error(`sale stream: ${sse.status} ${JSON.stringify(sse.body)}`);
    const t0 = performance.now();
    const r = await call(via.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, token);
    if (r.status !== 200) throw new Error(`checkout ${k}: ${r.status} ${JSON.stringify(r.body)}`);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([got, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no sale frame for checkout ${k} within 30 s`)), 30_000)))]).finally(() => {
      clearTimeout(timer);
      sse.close();
    });
    took.push(frameAt - t0);
  }
  return took;
}
