/**
 * The push feeds (GET /v1/stream/events, GET /v1/address/{a}/stream) as async iterators, read as
 * Server-Sent Events over fetch's ReadableStream (no EventSource: it cannot send the session
 * header, and browsers, edge runtimes and Node all have fetch).
 *
 * Resuming: each frame's `id` is its seq; a dropped connection is reopened with `Last-Event-ID`
 * set to the last seq received, which the contract answers with exactly what was missed. A
 * position older than the retained log is `resync_required` (thrown: read the feed again and
 * start anew). 429/5xx and network errors wait (at least `Retry-After`, else the stream's
 * `retry:`) and reconnect.
 *
 * Deduplication on `event_id`: the same event can come again with a higher seq when its row
 * changed (a sale confirmed, a repriced ask) and that later frame is news; a frame whose
 * event_id was already delivered with this seq or a higher one is dropped.
 */
import { MarketError } from './errors.js';
import type { Transport } from './transport.js';

export interface StreamEvent {
  seq: number;
  event_id: string;
  kind: string;
  [k: string]: unknown;
}

export interface StreamOptions {
  /** Start after this seq (default: the stream's head, only what follows). */
  after?: number;
  signal?: AbortSignal;
  /** Consecutive failed connections before the error is thrown (default 5). */
  maxReconnects?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface Frame {
  id: string | null;
  event: string;
  data: string;
}

const SEEN_MAX = 10_000;
const RECONNECT_STATUS = new Set([429, 502, 503, 504]);

/** Splits an SSE byte stream into frames (`id`, `event`, `data` lines; `:` comments; `retry:`). */
async function* frames(body: ReadableStream<Uint8Array>, onRetry: (ms: number) => void, onComment: (text: string) => void): AsyncGenerator<Frame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let f: Frame = { id: null, event: 'message', data: '' };
  let hasData = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (hasData) yield f;
          f = { id: null, event: 'message', data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) {
          onComment(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          f.data = hasData ? `${f.data}\n${value}` : value;
          hasData = true;
        } else if (field === 'id') f.id = value;
        else if (field === 'event') f.event = value;
        else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Every event of the stream at `path`, resumed across disconnects, deduplicated, until `signal` aborts. */
export async function* sseStream(http: Transport, path: string, query: Record<string, string | number | undefined>, o: StreamOptions = {}): AsyncGenerator<StreamEvent> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const delivered = new Map<string, number>();
  let last: number | undefined = o.after;
  let retryMs = 2_000;
  let failures = 0;
  while (!o.signal?.aborted) {
    let wait = retryMs;
    try {
      const res = await http.open(path, {
        query: { ...query, ...(last !== undefined ? { after: last } : {}) },
        headers: { accept: 'text/event-stream', ...(last !== undefined ? { 'last-event-id': String(last) } : {}) },
        ...(o.signal ? { signal: o.signal } : {}),
      });
      const type = res.headers.get('content-type') ?? '';
      if (!type.startsWith('text/event-stream')) throw new MarketError('invalid_response', `the stream answered ${type || 'no content type'}, not text/event-stream`, res.status);
      if (!res.body) throw new MarketError('invalid_response', 'this fetch gives no body stream (ReadableStream) to read events from', res.status);
      failures = 0;
      // Opened at the head, the server names the position it starts after: a reconnect before the
      // first frame resumes there, so nothing that happened in between is missed.
      const opened = (text: string) => {
        const at = /^stream open after (\d+)$/.exec(text);
        if (at && last === undefined) last = Number(at[1]);
      };
      for await (const f of frames(res.body, (ms) => (retryMs = ms), opened)) {
        const seq = Number(f.id);
        if (f.id === null || !Number.isSafeInteger(seq)) throw new MarketError('invalid_response', `a stream frame without a seq id (${f.id})`, res.status);
        let e: StreamEvent;
        try {
          e = { ...(JSON.parse(f.data) as object), seq } as StreamEvent;
        } catch {
          throw new MarketError('invalid_response', `a stream frame whose data is not JSON (${f.data.slice(0, 80)})`, res.status);
        }
        if (typeof e.event_id !== 'string') throw new MarketError('invalid_response', `stream frame ${seq} carries no event_id`, res.status);
        last = Math.max(last ?? seq, seq);
        if ((delivered.get(e.event_id) ?? -1) >= seq) continue;
        delivered.delete(e.event_id);
        delivered.set(e.event_id, seq);
        if (delivered.size > SEEN_MAX) delivered.delete(delivered.keys().next().value as string);
        yield e;
      }
    } catch (e) {
      if (o.signal?.aborted) return;
      if (!(e instanceof MarketError)) {
        // The body broke off mid-stream (a reset connection): resume from the last seq.
        if (++failures > (o.maxReconnects ?? 5)) throw new MarketError('network_error', `the stream broke off: ${e instanceof Error ? e.message : String(e)}`, null);
      } else {
        const transient = e.code === 'network_error' || e.code === 'timeout' || (e.status !== null && RECONNECT_STATUS.has(e.status));
        if (!transient || ++failures > (o.maxReconnects ?? 5)) throw e;
        wait = Math.max(wait, (e.retryAfterSeconds ?? 0) * 1000);
      }
    }
    if (o.signal?.aborted) return;
    await sleep(wait);
  }
}
