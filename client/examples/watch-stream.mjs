// Watch the public stream (SSE) from a position of the event log (AFTER; 0 replays what it keeps):
// resumed across disconnects, deduplicated; stop after COUNT events.
import { MarketClient } from '@counterparty-marketplace/client';
import { print } from './connect.mjs';

const market = new MarketClient({ baseUrl: process.env.MARKET_URL ?? 'http://127.0.0.1:8080' });
const want = Number(process.env.COUNT ?? 3);
const stop = new AbortController();
setTimeout(() => stop.abort(), Number(process.env.TIMEOUT_MS ?? 60_000)).unref();
const seen = [];
for await (const e of market.stream({}, { after: Number(process.env.AFTER ?? 0), signal: stop.signal })) {
  seen.push({ seq: e.seq, kind: e.kind, event_id: e.event_id });
  if (seen.length >= want) break;
}
print({ events: seen });
