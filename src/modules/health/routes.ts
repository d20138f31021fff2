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

/** Liveness and readiness, outside /v1 for load balancers and orchestrators (the page at / is the live-page area's). */
export function healthRoutes(app: App, ctx: Context): void {
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
          '200 when every check passes; 503 service_unavailable with the same checks otherwise. `utxos` names the source of wallet coins (UTXO_SOURCE: Counterparty Core with its Electrs, or Bitcoin Core\'s scantxoutset) and whether it answers. With Redis configured (REDIS_URL), `redis` checks the limiter\'s connection. Redis unreachable does not make the instance unready: while it is, each instance counts the same rate limits on its own windows (a client can then spend a budget once per instance), public reads are answered from the store, and new streams are admitted uncounted; `redis.ok` is false and `redis.detail` says why.',
        response: { 200: Ok(Type.Object({ store: Check, bitcoin: Check, counterparty: Check, utxos: Check, indexer: Check, redis: Type.Optional(Check) })), ...errorResponses },
      },
    },
    async () => {
      const ping = ctx.limiter.ping?.bind(ctx.limiter);
      const [store, bitcoin, counterparty, utxos, indexer, redis] = await Promise.all([
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
        check(() => ctx.chain.utxos.probe()),
        check(async () => {
          // The market reflects the chain within a few blocks, or it is not ready to quote.
          const [cursor, tip] = await Promise.all([ctx.indexer.cursor(), ctx.chain.bitcoin.getTip()]);
          if (!cursor) throw new Error('the indexer has not run yet');
          if (tip.height - cursor.height > MAX_INDEXER_LAG) throw new Error(`indexer at ${cursor.height}, tip ${tip.height}`);
          return `height ${cursor.height}`;
        }),
        ping ? check(ping) : undefined,
      ]);
      const checks = { store, bitcoin, counterparty, utxos, indexer, ...(redis ? { redis } : {}) };
      // Redis down degrades the limits to per-instance windows (ctx.limiterFallback); it closes nothing.
      const redisBlocks = redis !== undefined && !redis.ok && !ctx.limiterFallback;
      if (!store.ok || !bitcoin.ok || !counterparty.ok || !utxos.ok || !indexer.ok || redisBlocks) {
        throw new ApiError('service_unavailable', 'not ready', { retryable: true, checks });
      }
      return { result: checks };
    },
  );
}
