/**
 * Server-Sent Events fan-out of the event log, one hub per HTTP app.
 *
 * One pump per instance reads the log after its tail (woken by the EventNotifier, and by a slow
 * poll as a safety net), renders each entry once into its SSE frame, and hands the batch to every
 * client. A client first catches up on its own (reading the log from its position until it
 * reaches the pump's tail), then takes the pump's batches. Both steps read `seq > position` in
 * ascending order and the switch happens synchronously between two batches, so a client gets
 * every entry of its scope after its position exactly once (the log never numbers a later
 * commit lower: append.ts).
 *
 * Slow clients are dropped, never buffered without bound: after each write, a socket whose
 * pending output passes `maxBufferBytes` is destroyed; the client reconnects with Last-Event-ID.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../store/db.js';
import { EventLogReader, type LogRow } from './log-reader.js';
import type { EventNotifier } from './notifier.js';
import type { StreamSlots } from '../limits/stream-slots.js';

/** A log entry ready to send: its frame, and what filters look at. */
export interface Frame {
  seq: number;
  feed: 'public' | 'owner';
  address: string | null;
  text: string;
  /** Filter keys (a retraction carries those of the event it withdraws). */
  kind: string;
  asset: string | null;
  collection: string | null;
}

export type Renderer = (rows: LogRow[]) => Promise<Frame[]>;

export interface HubOptions {
  maxPerIp: number;
  maxPerAddress: number;
  maxBufferBytes: number;
  heartbeatMs: number;
  /** The safety-net poll of the log, should a notification be lost. */
  pollMs: number;
}

export type Scope = { feed: 'public'; match: (f: Frame) => boolean } | { feed: 'owner'; address: string };

/** Why a stream was refused before it opened. */
export class StreamLimit extends Error {
  constructor(readonly by: 'ip' | 'address') {
    super(by === 'ip' ? 'too many concurrent streams from this IP' : 'too many concurrent streams for this address');
  }
}

const BATCH = 500;

/**
 * A frame's bytes, made once per batch and written as they are to every client that wants it:
 * the SSE text as UTF-8, and the same framed as one HTTP/1.1 chunk (`<hex length>\r\n…\r\n`).
 * With ten thousand clients, encoding the text and framing the chunk for each (what
 * `res.write(string)` does, plus a cork and a nextTick per write) cost more than the writes.
 */
export class Wire {
  private chunked: Buffer | undefined;

  constructor(readonly raw: Buffer) {}

  static of(text: string): Wire {
    return new Wire(Buffer.from(text, 'utf8'));
  }

  get chunk(): Buffer {
    return (this.chunked ??= Buffer.concat([Buffer.from(`${this.raw.length.toString(16)}\r\n`, 'latin1'), this.raw, CRLF]));
  }
}

const CRLF = Buffer.from('\r\n', 'latin1');
const HEARTBEAT = Wire.of(': heartbeat\n\n');

/** `res.chunkedEncoding`: set by Node when the head was stored (HTTP/1.1 without a length); not in its typings. */
type Chunked = ServerResponse & { chunkedEncoding?: boolean };

class Client {
  live = false;
  closed = false;

  constructor(
    readonly res: ServerResponse,
    readonly scope: Scope,
    public position: number,
  ) {}

  wants(f: Frame): boolean {
    if (this.scope.feed === 'owner') return f.feed === 'owner' && f.address === this.scope.address;
    return f.feed === 'public' && this.scope.match(f);
  }

  /**
   * Writes a frame. Once the response's head and first bytes are on the socket (the route wrote
   * them before the hub took the response) and nothing of the response waits in front of the
   * socket, the frame's ready bytes go to the socket itself: one write, usually one syscall, no
   * per-client encoding. Otherwise (a pipelined response still queued behind another), through
   * the response, which keeps the order.
   */
  send(w: Wire): void {
    if (this.closed) return;
    const res = this.res as Chunked;
    const socket = res.socket;
    if (socket && !socket.destroyed && res.headersSent && res.writableLength === socket.writableLength) socket.write(res.chunkedEncoding ? w.chunk : w.raw);
    else res.write(w.raw);
  }

  /** A pump batch: entries after `prev` up to `tail`. Ignored while catching up (that reads the log itself). */
  take(frames: Frame[], wires: Wire[], tail: number): void {
    if (!this.live || this.closed) return;
    const socket = this.res.socket;
    // Several frames for one client leave in one write (writev) rather than one each.
    const many = frames.length > 1 && socket !== null;
    if (many) socket.cork();
    for (let i = 0; i < frames.length; i++) {
      const f = frames[i]!;
      if (f.seq > this.position && this.wants(f)) this.send(wires[i]!);
    }
    if (many) socket.uncork();
    this.position = Math.max(this.position, tail);
  }
}

export class StreamHub {
  private readonly reader: EventLogReader;
  private readonly clients = new Set<Client>();
  private tail = 0;
  private started: Promise<void> | undefined;
  private pumping = false;
  private again = false;
  private unsubscribe: (() => void) | undefined;
  private poll: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(
    db: Db,
    private readonly notifier: EventNotifier,
    private readonly render: Renderer,
    private readonly opts: HubOptions,
    private readonly log: FastifyBaseLogger,
    private readonly slots: StreamSlots,
    private readonly onCount: (n: number) => void = () => {},
  ) {
    this.reader = new EventLogReader(db);
  }

  get size(): number {
    return this.clients.size;
  }

  /**
   * Counts a stream against its IP and address (across instances when the slots are shared), or
   * throws StreamLimit. Returns its release. Slots that cannot be counted (Redis down) let the
   * stream through uncounted: opening one already passed the uncached-read budget.
   */
  async admit(ip: string, address: string | null): Promise<() => void> {
    const list = [{ key: `ip:${ip}`, limit: this.opts.maxPerIp }, ...(address !== null ? [{ key: `address:${address}`, limit: this.opts.maxPerAddress }] : [])];
    let grant;
    try {
      grant = await this.slots.take(list);
    } catch (e) {
      this.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'stream slots unavailable; stream admitted uncounted');
      return () => {};
    }
    if ('full' in grant) throw new StreamLimit(grant.full.startsWith('ip:') ? 'ip' : 'address');
    return grant.release;
  }

  /** Streams the scope's entries after `after` to `res` (headers already sent) until either side closes. */
  async open(res: ServerResponse, scope: Scope, after: number, release: () => void): Promise<void> {
    await this.start();
    const client = new Client(res, scope, after);
    this.clients.add(client);
    this.onCount(this.clients.size);
    res.on('close', () => {
      client.closed = true;
      this.clients.delete(client);
      release();
      this.onCount(this.clients.size);
    });
    try {
      await this.catchUp(client);
    } catch (e) {
      this.log.warn({ err: String(e) }, 'stream catch-up failed');
      res.destroy();
    }
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    clearInterval(this.poll);
    clearInterval(this.heartbeat);
    for (const c of this.clients) c.res.destroy();
    this.clients.clear();
    this.started = undefined;
  }

  private start(): Promise<void> {
    this.started ??= (async () => {
      this.tail = (await this.reader.head()).last;
      this.unsubscribe = this.notifier.subscribe(() => this.wake());
      this.poll = setInterval(() => this.wake(), this.opts.pollMs);
      this.heartbeat = setInterval(() => {
        for (const c of this.clients) c.send(HEARTBEAT);
        this.checkBuffers();
      }, this.opts.heartbeatMs);
      this.poll.unref();
      this.heartbeat.unref();
    })();
    return this.started;
  }

  private async catchUp(c: Client): Promise<void> {
    while (!c.closed) {
      // Synchronous from this check to the flag: no pump batch can slip between them.
      if (c.position >= this.tail) {
        c.live = true;
        return;
      }
      const rows = await this.reader.all(c.position, BATCH);
      if (!rows.length) {
        c.position = Math.max(c.position, this.tail);
        continue;
      }
      const mine = rows.filter((r) => (c.scope.feed === 'owner' ? r.feed === 'owner' && r.address === c.scope.address : r.feed === 'public'));
      for (const f of await this.render(mine)) if (c.wants(f)) c.send(Wire.of(f.text));
      c.position = rows[rows.length - 1]!.seq;
      this.checkBuffers();
      await turn();
    }
  }

  /**
   * Drops the clients whose pending output passed the bound, once the writes of this turn had
   * their chance to reach the sockets (a batch written in one turn may sit in Node's buffer until
   * the next tick even for a reader that keeps up), so only output the peer has not taken counts.
   * One check of every client per turn, not one timer per write.
   */
  private checkBuffers(): void {
    if (this.checking) return;
    this.checking = true;
    setImmediate(() => {
      this.checking = false;
      for (const c of this.clients) {
        if (c.closed || c.res.writableLength <= this.opts.maxBufferBytes) continue;
        this.log.info({ buffered: c.res.writableLength }, 'stream client too slow: dropped');
        c.res.destroy();
      }
    });
  }

  private wake(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump().finally(() => (this.pumping = false));
  }

  private async pump(): Promise<void> {
    try {
      do {
        this.again = false;
        for (;;) {
          if (!this.clients.size) {
            // Nobody listens: move the tail without rendering, unless a client went live meanwhile
            // (it must get every entry after the tail it saw, so then read them as usual).
            const { last } = await this.reader.head();
            if (this.clients.size) continue;
            this.tail = last;
            break;
          }
          const rows = await this.reader.all(this.tail, BATCH);
          if (!rows.length) break;
          const frames = await this.render(rows);
          const tail = rows[rows.length - 1]!.seq;
          this.tail = tail;
          const wires = frames.map((f) => Wire.of(f.text));
          for (const c of this.clients) c.take(frames, wires, tail);
          this.checkBuffers();
          await turn();
          if (rows.length < BATCH) break;
        }
      } while (this.again);
    } catch (e) {
      this.log.warn({ err: String(e) }, 'stream pump failed; the next notification or poll retries');
    }
  }
}

/**
 * Lets the event loop run I/O between batches: SQLite queries resolve without leaving the
 * microtask queue, so a backlog would otherwise be written in one turn, sockets could not drain,
 * and every client would look slow.
 */
const turn = () => new Promise<void>((r) => setImmediate(r));
