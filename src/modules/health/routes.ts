import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { Ok, errorResponses } from '../../http/envelope.js';

/** Blocks the indexer may trail the tip and still be ready (one interval's worth, with room). */
const MAX_INDEXER_LAG = 3;

const Check = Type.Object({ ok: Type.Boolean(), detail: Type.Optional(Type.String()) });

async function check(fn: () => Promise<string | void>): Promise<{ ok: boolean; detail?: string }> {
  try {
    const detail = await fn();
    return detail ? { ok: true, detail } : { ok: true };
  } catch (e) {
    return { ok: false, detail: e instanceof Error ? e.message.slice(0, 200) : 'failed' };
  }
}

/** The front door for a person who opens the base URL in a browser: where to go next. */
const HOME = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Counterparty collectibles marketplace API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}</style></head>
<body><h1>Counterparty collectibles marketplace API</h1>
<p>An HTTP JSON API: every success is <code>{result: …}</code>, every failure <code>{error, code}</code>.</p>
<ul>
<li><a href="/docs">/docs</a>: the interactive API reference (sign in, then Authorize with your <code>x-session-token</code>)</li>
<li><a href="/v1/openapi.json">/v1/openapi.json</a>: the OpenAPI 3.1 document, for clients and code generators</li>
<li><a href="/v1/collections">/v1/collections</a>: the market's collections, a first public read</li>
<li><a href="/healthz">/healthz</a> and <a href="/readyz">/readyz</a>: liveness and readiness</li>
</ul></body></html>
`;

/** Liveness and readiness, outside /v1 for load balancers and orchestrators; the small home page at /. */
export function healthRoutes(app: App, ctx: Context): void {
  app.get('/', { schema: { hide: true }, config: { cache: { public: 300 } } }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(HOME));

  app.get(
    '/healthz',
    { schema: { tags: ['health'], summary: 'Process is up',
        description: 'Liveness: 200 while the process serves HTTP, whatever its dependencies say (GET /readyz checks the store, the backends and the indexer lag).', response: { 200: Ok(Type.Object({ status: Type.Literal('ok') })) } } },
    async () => ({ result: { status: 'ok' as const } }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'Store reachable, chain backends reachable and caught up',
        description:
          '200 when every check passes; 503 service_unavailable with the same checks otherwise. With Redis configured (REDIS_URL), `redis` checks the limiter\'s connection: while Redis is unreachable every rate-limited route answers 503, so the instance is not ready.',
        response: { 200: Ok(Type.Object({ store: Check, bitcoin: Check, counterparty: Check, indexer: Check, redis: Type.Optional(Check) })), ...errorResponses },
      },
    },
    async () => {
      const ping = ctx.limiter.ping?.bind(ctx.limiter);
      const [store, bitcoin, counterparty, indexer, redis] = await Promise.all([
        check(() => ctx.store.ping()),
        check(async () => {
          const tip = await ctx.chain.bitcoin.getTip();
          return `height ${tip.height}`;
        }),
        check(async () => {
          const s = await ctx.chain.counterparty.getStatus();
          if (!s.ready) throw new Error(`catching up: ${s.counterparty_height}/${s.bitcoin_height}`);
          return `height ${s.counterparty_height}`;
        }),
        check(async () => {
          // The market reflects the chain within a few blocks, or it is not ready to quote.
          const [cursor, tip] = await Promise.all([ctx.indexer.cursor(), ctx.chain.bitcoin.getTip()]);
          if (!cursor) throw new Error('the indexer has not run yet');
          if (tip.height - cursor.height > MAX_INDEXER_LAG) throw new Error(`indexer at ${cursor.height}, tip ${tip.height}`);
          return `height ${cursor.height}`;
        }),
        ping ? check(ping) : undefined,
      ]);
      const checks = { store, bitcoin, counterparty, indexer, ...(redis ? { redis } : {}) };
      if (!store.ok || !bitcoin.ok || !counterparty.ok || !indexer.ok || (redis && !redis.ok)) {
        throw new ApiError('service_unavailable', 'not ready', { retryable: true, checks });
      }
      return { result: checks };
    },
  );
}
