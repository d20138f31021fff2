/**
 * The push feeds: the public event log and an owner's, as Server-Sent Events (src/events/stream-hub.ts).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, errorResponses } from '../../http/envelope.js';
import { ApiError, invalid } from '../../http/errors.js';
import { sessionSecurity } from '../../http/security.js';
import { Address, AssetId } from '../../http/validators.js';
import { ipBucketId } from '../../limits/ip-key.js';
import { RETRACTED } from '../../events/append.js';
import { ResyncRequired, type LogRow } from '../../events/log-reader.js';
import { StreamHub, StreamLimit, type Frame, type Scope } from '../../events/stream-hub.js';
import { requireOwner } from '../auth/index.js';
import type { EventsService } from './service.js';

const tags = ['events'];
const PUBLIC_STREAM = '/v1/stream/events';
const OWNER_STREAM = '/v1/address/:address/stream';
/** How long an EventSource waits before reconnecting (the `retry:` field). */
const RETRY_MS = 2_000;

const KIND_FILTER: Record<string, string[]> = {
  sales: ['sale'],
  listings: ['listed', 'delisted'],
  offers: ['offer_placed', 'offer_ended', 'collection_offer_placed', 'collection_offer_ended'],
};

const FRAMES = `Server-Sent Events (\`text/event-stream\`). Each event is one frame: \`id: <seq>\`, \`event: <kind>\`, \`data: <the event JSON>\` — the event as the matching feed shows it, plus its \`seq\` (and its \`event_id\`, as in the feed). \`event_retracted\` frames withdraw an earlier event (\`retracts\`: its event_id; a reorg undid a confirmation, a reverted ending, a released sale). An event_id may come again when its row changes (a sale's \`confirmed_at\`, a repriced ask): the later frame wins.

Position: \`Last-Event-ID\` (sent by EventSource on reconnect) or \`after\` (a seq; Last-Event-ID wins when both are present); without either the stream starts at the newest event (only what follows). Reconnecting with the last \`id\` received gives exactly what was missed: every entry after it, once, in seq order. A position older than the retention (EVENT_LOG_RETENTION_DAYS, default 7) is 410 \`resync_required\`: read the feed again (newest first, or \`after=\` from a fresh position) and reconnect.

Comments (\`: heartbeat\`) keep the connection alive every STREAM_HEARTBEAT_MS (default 15 s). A client that reads too slowly (more than STREAM_MAX_BUFFER_BYTES pending, default 1 MiB) is disconnected and resumes with Last-Event-ID; nothing is buffered without bound. Concurrent streams are limited per IP (STREAM_MAX_PER_IP, default 20) and per address (STREAM_MAX_PER_ADDRESS, default 5): 429 \`rate_limited\` with Retry-After. Opening a stream counts against the uncached-read budget. The stream is never cached.`;

const Gone = { ...ErrorEnvelope, description: 'resync_required: the position is older than the retained event log' };
const TooMany = { ...ErrorEnvelope, description: 'rate_limited: too many concurrent streams from this IP or for this address, or the uncached-read budget' };
const Stream = { description: 'The event stream (text/event-stream), open until either side closes', content: { 'text/event-stream': { schema: { type: 'string' } } } };

const Position = Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Start after this seq (Last-Event-ID wins when sent)' }));

/** The position asked for: Last-Event-ID, else `after`, else null (start at the head). */
function positionOf(req: FastifyRequest, after: number | undefined): number | null {
  const h = req.headers['last-event-id'];
  if (h === undefined) return after ?? null;
  const v = Array.isArray(h) ? h[0] : h;
  if (!v || !/^(0|[1-9][0-9]{0,15})$/.test(v) || !Number.isSafeInteger(Number(v))) throw invalid('Last-Event-ID must be a seq (a non-negative integer)', { field: 'headers.last-event-id' });
  return Number(v);
}

export function streamRoutes(app: App, ctx: Context, service: EventsService): void {
  const frame = (seq: number, kind: string, data: object) => `id: ${seq}\nevent: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;

  /** Renders log rows once into frames, with the filter keys (a retraction takes those of the event it withdraws). */
  const render = async (rows: LogRow[]): Promise<Frame[]> => {
    const pub = rows.filter((r) => r.feed === 'public');
    const retracted = [...new Set(pub.filter((r) => r.kind === RETRACTED).map((r) => r.retracts!))];
    const [pubWire, keys] = await Promise.all([service.renderPublic(pub), retractedKeys(retracted)]);
    const ownWire = service.renderOwner(rows.filter((r) => r.feed === 'owner'));
    const wire = new Map<number, Record<string, any>>([...pubWire, ...ownWire].map((w) => [w.seq, w]));
    return rows.map((r) => {
      const w = wire.get(r.seq)!;
      const k = r.kind === RETRACTED ? keys.get(r.retracts!) : w;
      return { seq: r.seq, feed: r.feed, address: r.address, text: frame(r.seq, r.kind, w), kind: k?.kind ?? r.kind, asset: k?.asset ?? null, collection: k?.collection ?? null };
    });
  };

  /** Kind, asset and collection of the events retracted, from their latest log entry. */
  const retractedKeys = async (ids: string[]): Promise<Map<string, { kind: string; asset: string | null; collection: string | null }>> => {
    if (!ids.length) return new Map();
    const rows = await ctx.store.db.selectFrom('event_log').selectAll().where('event_id', 'in', ids).where('feed', '=', 'public').orderBy('seq').execute();
    const wire = await service.renderPublic(rows.map((r) => ({ ...r, seq: Number(r.seq), at: Number(r.at) })));
    return new Map(wire.map((w) => [w.event_id, w as { kind: string; asset: string | null; collection: string | null }]));
  };

  const hub = new StreamHub(
    ctx.store.db,
    ctx.notifier,
    render,
    {
      maxPerIp: ctx.config.STREAM_MAX_PER_IP,
      maxPerAddress: ctx.config.STREAM_MAX_PER_ADDRESS,
      maxBufferBytes: ctx.config.STREAM_MAX_BUFFER_BYTES,
      heartbeatMs: ctx.config.STREAM_HEARTBEAT_MS,
      pollMs: 5_000,
    },
    ctx.logger,
    ctx.streamSlots,
    (n) => app.metrics.streamClients.set(n),
  );
  // Before the server closes: it waits for open connections, and a stream never ends by itself.
  app.addHook('preClose', () => hub.close());

  /** Checks the position and the limits, then hands the socket to the hub. */
  async function serve(req: FastifyRequest, reply: FastifyReply, scope: Scope, address: string | null, after: number | undefined): Promise<void> {
    let position = positionOf(req, after);
    if (position === null) position = (await service.log.head()).last;
    try {
      await service.log.checkPosition(position);
    } catch (e) {
      if (e instanceof ResyncRequired) throw new ApiError('resync_required', 'this position is older than the retained event log: read the feed again and reconnect', { pruned_through: e.oldest });
      throw e;
    }
    let release: () => void;
    try {
      release = await hub.admit(ipBucketId(req.ip), address);
    } catch (e) {
      if (e instanceof StreamLimit) throw new ApiError('rate_limited', e.message, { retry_after_seconds: 5 }, { headers: { 'Retry-After': '5' } });
      throw e;
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no', 'x-request-id': String(req.id) });
    res.write(`retry: ${RETRY_MS}\n: stream open after ${position}\n\n`);
    await hub.open(res, scope, position, release);
  }

  app.get(
    PUBLIC_STREAM,
    {
      config: { cache: 'no-store', limit: 'uncached_read' },
      schema: {
        tags,
        summary: 'Push: the public event log as Server-Sent Events',
        description: `The public feed (GET /v1/events) pushed as it happens. Filters: \`kind\` (\`sales\`, \`listings\`, \`offers\`, as on the feed), \`collection\` (slug), \`asset\`; a retraction passes the filters of the event it withdraws.\n\n${FRAMES}`,
        querystring: Type.Object({
          kind: Type.Optional(Type.Union([Type.Literal('sales'), Type.Literal('listings'), Type.Literal('offers')])),
          collection: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9-]+$', description: 'Collection slug' })),
          asset: Type.Optional(AssetId),
          after: Position,
        }),
        response: { 200: Stream, 400: { ...ErrorEnvelope, description: 'invalid_request: a bad filter or Last-Event-ID' }, 410: Gone, 429: TooMany, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { kind, collection, asset } = req.query;
      const kinds = kind ? new Set(KIND_FILTER[kind]) : null;
      const match = (f: Frame) => (!kinds || kinds.has(f.kind)) && (!collection || f.collection === collection) && (!asset || f.asset === asset);
      await serve(req, reply, { feed: 'public', match }, null, req.query.after);
    },
  );

  app.get(
    OWNER_STREAM,
    {
      config: { cache: 'no-store', limit: 'uncached_read' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: "Push: the session address's event log as Server-Sent Events",
        description: `The owner feed (GET /v1/address/{address}/events) pushed as it happens. Owner only: 401 without a session, 403 for another address. EventSource cannot send headers: use a client that can (the session travels in \`x-session-token\`).\n\n${FRAMES}`,
        params: Type.Object({ address: Address }, { additionalProperties: false }),
        querystring: Type.Object({ after: Position }),
        response: {
          200: Stream,
          400: { ...ErrorEnvelope, description: 'invalid_request: a bad Last-Event-ID' },
          401: { ...ErrorEnvelope, description: 'unauthenticated: no session, or an unknown or expired one' },
          403: { ...ErrorEnvelope, description: "forbidden: another address's stream" },
          410: Gone,
          429: TooMany,
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const address = requireOwner(req, req.params.address);
      await serve(req, reply, { feed: 'owner', address }, address, req.query.after);
    },
  );
}
