import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { Txid } from '../../http/validators.js';
import { transactionStatuses, MAX_STATUS_TXIDS } from './service.js';

export const TxStatusItem = Type.Union(
  [
    Type.Object(
      {
        txid: Txid,
        state: Type.Literal('known'),
        confirmed: Type.Boolean({ description: 'Bitcoin confirmation only, not Counterparty validity' }),
        confirmations: Type.Optional(Type.Integer({ minimum: 1, description: 'absent when unconfirmed or the tip is unknown' })),
        final: Type.Boolean({ description: 'true at 3 or more confirmations' }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        txid: Txid,
        state: Type.Literal('unknown', { description: 'neither in the mempool nor in the chain as far as the node knows' }),
        confirmed: Type.Literal(false),
        final: Type.Literal(false),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'One txid’s status; an unknown txid is an unknown state, never a 404.' },
);

export function transactionRoutes(app: App, ctx: Context): void {
  app.post(
    '/v1/transactions/status',
    {
      config: { limit: 'uncached_read' },
      schema: {
        tags: ['transactions'],
        summary: 'Bitcoin status of up to 25 transactions',
        description:
          'Read-only existence checks, answered in request order. No raw transactions, balances or broadcast. At most four upstream reads run at once. Not cached; counts against the uncached-read budget.',
        body: Type.Object(
          { txids: Type.Array(Txid, { minItems: 1, maxItems: MAX_STATUS_TXIDS, uniqueItems: true, description: '1 to 25 unique txids' }) },
          { additionalProperties: false },
        ),
        response: { 200: Ok(Type.Array(TxStatusItem, { maxItems: MAX_STATUS_TXIDS })), ...errorResponses },
      },
    },
    async (req) => ({ result: await transactionStatuses(ctx.chain.bitcoin, req.body.txids) }),
  );
}
