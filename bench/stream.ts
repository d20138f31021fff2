/**
 * The push stream (one instance): events per second through GET /v1/stream/events to 100
 * clients at once, and the latency from a checkout completion to its `sale` frame on a client.
 * Clients are real SSE connections over loopback, each from its own address (X-Forwarded-For
 * with the bench's one trusted hop) so the per-IP stream limit does not shape the run.
 */
import { SigHash } from '@scure/btc-signer';
import type { Context } from '../src/context.js';
import type { Db } from '../src/store/db.js';
import type { Devnet } from '../src/chain/devnet/devnet.js';
import { appendEvent } from '../src/events/append.js';
import { EventLogReader } from '../src/events/log-reader.js';
import { attachFreshUnit } from './units.js';
import { apiCaller } from './race.js';
import { signPsbt } from '../test/helpers/market.js';
import { openSse, type SseClient } from '../test/helpers/sse.js';
import { makeWallet, signMessageBip322, type TestWallet } from '../test/helpers/wallets.js';

export const ipOf = (k: number) => `10.${200 + ((k >> 8) & 31)}.${k & 255}.9`;

export interface StreamResult {
  clients: number;
  events: number;
  events_per_s: number;
  frames_per_s: number;
  checkouts: number;
  checkout_to_frame_p50_ms: number;
  checkout_to_frame_max_ms: number;
}

/** A public feed row (public-store.ts shape) for the throughput run: a `listed` event of a made-up listing. */
const listedRow = (i: number) => ({
  event_id: `ev_bench_${i}`, kind: 'listed', at: 1_700_000_000, reason: null, asset: null, asset_longname: null, collection: null,
  bidder: null, price_sats: 10_000 + i, seller: null, buyer: null, txid: null, fill_kind: null, confirmed_at: null,
});

export interface Throughput {
  events_per_s: number;
  frames_per_s: number;
}

/**
 * `events` public events appended to `db`'s log in commits of 100, through the stream to
 * `clients` SSE clients spread over `apis` in turn (one instance, or several on one store):
 * from the first commit to the last frame on the slowest client.
 */
export async function streamThroughput(db: Db, apis: string[], clients = 100, events = 5_000): Promise<Throughput> {
  const head = (await new EventLogReader(db).head()).last;
  const conns: SseClient[] = [];
  const lastSeen = new Array<number>(clients).fill(head);
  for (let k = 0; k < clients; k++) {
    conns.push(await openSse(`${apis[k % apis.length]}/v1/stream/events?kind=listings`, { 'x-forwarded-for': ipOf(k), 'last-event-id': String(head) }, (f) => (lastSeen[k] = Number(f.id))));
    if (conns[k]!.status !== 200) throw new Error(`stream ${k}: ${conns[k]!.status} ${JSON.stringify(conns[k]!.body)}`);
  }
  const t0 = performance.now();
  for (let i = 0; i < events; i += 100) {
    await db.transaction().execute(async (tx) => {
      for (let j = i; j < Math.min(events, i + 100); j++) appendEvent(tx, { event_id: `ev_bench_${head}_${j}`, feed: 'public', kind: 'listed', at: 1_700_000_000, row: listedRow(j) });
    });
    // Writers are requests in a real market: let the loop serve I/O between commits.
    await new Promise((r) => setImmediate(r));
  }
  const target = head + events;
  const deadline = Date.now() + 120_000;
  while (lastSeen.some((s) => s < target)) {
    if (Date.now() > deadline || conns.some((c) => c.ended)) throw new Error(`stream bench: clients stopped at ${Math.min(...lastSeen)} of ${target}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  const secs = (performance.now() - t0) / 1000;
  for (const c of conns) c.close();
  return { events_per_s: Math.round(events / secs), frames_per_s: Math.round((events * clients) / secs) };
}

/** p50 and slowest of a set of latencies (ms, one decimal). */
export function medianAndMax(latencies: number[]): { p50: number; max: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return { p50: round(sorted[Math.floor((sorted.length - 1) / 2)]!), max: round(sorted[sorted.length - 1]!) };
}

export async function streamBench(ctx: Context, api: string, clients = 100, events = 5_000): Promise<StreamResult> {
  const flow = await streamThroughput(ctx.store.db, [api], clients, events);
  const latencies = await checkoutToFrame(ctx, api, 5);
  const { p50, max } = medianAndMax(latencies);
  return {
    clients,
    events,
    ...flow,
    checkouts: latencies.length,
    checkout_to_frame_p50_ms: p50,
    checkout_to_frame_max_ms: max,
  };
}

/** From sending a checkout completion to its `sale` frame on a connected client, one checkout at a time. */
async function checkoutToFrame(ctx: Context, api: string, n: number): Promise<number[]> {
  const devnet = ctx.devnet as unknown as Devnet;
  const call = apiCaller(api);
  const signIn = async (w: TestWallet, ip: string) => {
    const c = (await call('POST', '/v1/auth/challenge', { body: { address: w.address }, ip })).body.result;
    return (await call('POST', '/v1/auth/verify', { body: { address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message as string) }, ip })).body.result.token as string;
  };
  const seller = makeWallet('p2wpkh', 'bench-stream-seller');
  const sellerToken = await signIn(seller, ipOf(900));
  const units = [];
  for (let k = 0; k < n; k++) units.push(await attachFreshUnit(devnet, seller));
  await devnet.mine(1);
  await ctx.sync();
  const expires = Math.floor(Date.now() / 1000) + 86_400;
  const listings: string[] = [];
  for (const [k, u] of units.entries()) {
    const pf = (await call('POST', '/v1/listing-preflights', { body: { seller: seller.address, asset: u.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: { txid: u.txid, vout: 0 }, price_sats: 30_000 + k, idempotency_key: `bench-stream-${k}` }, token: sellerToken, ip: ipOf(900) })).body.result;
    const psbt = signPsbt(pf.listing.psbt_hex as string, seller, [0], SigHash.SINGLE_ANYONECANPAY);
    listings.push((await call('POST', `/v1/listing-preflights/${pf.id}/listing`, { body: { psbt_hex: psbt, expires_at: expires }, token: sellerToken, ip: ipOf(900) })).body.result.id as string);
  }
  await ctx.sync();

  const took: number[] = [];
  for (const [k, id] of listings.entries()) {
    const buyer = makeWallet('p2wpkh', `bench-stream-buyer-${k}`);
    await devnet.faucet(buyer.address, 500_000);
    const token = await signIn(buyer, ipOf(901 + k));
    const q = (await call('POST', '/v1/checkout/quotes', { body: { lines: [{ listing_id: id }] }, token, ip: ipOf(901 + k) })).body.result;
    const psbt = signPsbt(q.psbt_hex as string, buyer, q.inputs_to_sign as number[], SigHash.ALL);
    let t0 = 0;
    let frameAt = 0;
    const head = (await new EventLogReader(ctx.store.db).head()).last;
    const got = new Promise<void>((resolve) => {
      void openSse(`${api}/v1/stream/events?kind=sales`, { 'x-forwarded-for': ipOf(950 + k), 'last-event-id': String(head) }, (f, c) => {
        if (f.event !== 'sale' || f.data.buyer !== buyer.address) return;
        frameAt = performance.now();
        c.close();
        resolve();
      });
    });
    await new Promise((r) => setTimeout(r, 20)); // the stream is open and live
    t0 = performance.now();
    await call('POST', `/v1/checkout/quotes/${q.id}/complete`, { body: { psbt_hex: psbt }, token, ip: ipOf(901 + k) });
    await got;
    took.push(frameAt - t0);
  }
  return took;
}
