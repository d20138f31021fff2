/**
 * Fresh reads after a trade (#30), with two `serve` processes on one PostgreSQL schema: a
 * collection's book is read on instance B until B answers it from its cache, a checkout of the
 * book's cheapest listing completes on instance A, and B's book is read every 5 ms until it no
 * longer shows the sold listing. `stale_after_trade_ms` is the time from the completion's answer
 * (the claim is committed before it: a bot re-reads after it) to that first read; the bound is
 * 1,000 ms at p99. Each instance keeps its own cache, so what ends B's entry is A's commit heard
 * through the event log's NOTIFY (src/http/cache-generation.ts), not a shared delete. Twelve trades:
 * each signs two wallets in, and sign-in allows 60 requests a minute per IP; p99 is the nearest
 * rank, so with twelve it is the slowest.
 */
import { call, type CrashRig, type Market } from '../test/helpers/crash.js';
import { makeWallet } from '../test/helpers/wallets.js';
import { importCatalog } from '../src/modules/market/catalog-import.js';

export const STALE_AFTER_TRADE_BOUND_MS = 1_000;

export interface StaleAfterTrade {
  trades: number;
  /** From the completion's answer to B's first book without the listing. */
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** The same, from sending the completion (includes the completion itself). */
  from_send_p99_ms: number;
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! * 10) / 10;
};

export async function staleAfterTrade(rig: CrashRig, reader: Market, writer: Market, trades = 12): Promise<StaleAfterTrade> {
  const seller = makeWallet('p2wpkh', 'bench-stale-seller');
  const listed: Array<{ listingId: string; asset: string }> = [];
  // Ascending prices, bought cheapest first: each trade takes the book's top ask.
  for (let k = 0; k < trades; k++) listed.push(await rig.listedUnit(writer, seller, 40_000 + k * 100));
  await rig.withMarketDb((db) =>
    importCatalog(db, { collections: [{ slug: 'stale-bench', name: 'Stale bench' }], artists: [], assets: listed.map((l) => ({ asset: l.asset, collection: 'stale-bench' })) }),
  );
  const book = `${reader.url}/v1/collections/stale-bench/book`;
  const shows = async (id: string) => {
    const r = await fetch(book, { headers: { 'x-forwarded-for': '10.99.0.1' } });
    const body = (await r.json()) as { result: { asks: Array<{ listings: Array<{ id: string }> }> } };
    return { hit: r.headers.get('x-cache') === 'hit', shown: body.result.asks.some((a) => a.listings.some((l) => l.id === id)) };
  };
  const fromAnswer: number[] = [];
  const fromSend: number[] = [];
  for (const [k, { listingId }] of listed.entries()) {
    const { q, token, signed } = await rig.signedQuote(writer, listingId, makeWallet('p2wpkh', `bench-stale-buyer-${k}`), makeWallet('p2wpkh', `bench-stale-dest-${k}`));
    // B serves the book from its cache, and it shows the listing.
    for (let tries = 0; ; tries++) {
      const r = await shows(listingId);
      if (r.hit && r.shown) break;
      if (tries > 200) throw new Error(`book on B never cached with listing ${listingId}`);
      await new Promise((res) => setTimeout(res, 10));
    }
    const sent = performance.now();
    const r = await call(writer.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, token);
    const answered = performance.now();
    if (r.status !== 200) throw new Error(`checkout ${k}: ${r.status} ${JSON.stringify(r.body)}`);
    for (;;) {
      if (!(await shows(listingId)).shown) break;
      if (performance.now() - answered > 30_000) throw new Error(`B still shows sold listing ${listingId} after 30 s`);
      await new Promise((res) => setTimeout(res, 5));
    }
    const gone = performance.now();
    fromAnswer.push(gone - answered);
    fromSend.push(gone - sent);
  }
  return {
    trades,
    p50_ms: quantile(fromAnswer, 0.5),
    p99_ms: quantile(fromAnswer, 0.99),
    max_ms: quantile(fromAnswer, 1),
    from_send_p99_ms: quantile(fromSend, 0.99),
  };
}
