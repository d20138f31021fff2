import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { QuantityRaw } from '../../http/validators.js';
import { roundFeeRate } from '../../trade/fee-rates.js';

const Rate = (d: string) => Type.Number({ minimum: 0, description: `${d}, sat/vB` });

export const FeeRateResult = Type.Object(
  {
    fastest: Rate('next block'),
    half_hour: Rate('within about 3 blocks'),
    hour: Rate('within about 6 blocks'),
    economy: Rate('within about a day'),
    minimum: Rate('the node’s relay floor'),
    unit: Type.Literal('sat/vB'),
  },
  { additionalProperties: false },
);

export const AttachFeeResult = Type.Object(
  {
    asset: Type.Literal('XCP'),
    fee_raw: { ...QuantityRaw, description: 'XCP (8 decimals) one attach would pay now, raw units' },
    variable_until_confirmed: Type.Literal(true, {
      description: 'The fee in force when the block parses the attach is the one charged.',
    }),
  },
  { additionalProperties: false, description: 'Display-only Counterparty protocol fee for one attach: neither a Bitcoin network fee nor a marketplace fee.' },
);

export function feeRoutes(app: App, ctx: Context): void {
  app.get(
    '/v1/fee-rate',
    {
      config: { limit: 'uncached_read', cache: { public: 30 } },
      schema: {
        tags: ['market'],
        summary: 'Current Bitcoin fee rates',
        description: 'From the node’s fee estimator, in sat/vB, rounded up to 0.1. 502/503 upstream_unavailable when the node cannot answer.',
        response: { 200: Ok(FeeRateResult), ...errorResponses },
      },
    },
    async () => {
      const f = await ctx.chain.bitcoin.estimateFees();
      const up = roundFeeRate;
      return { result: { fastest: up(f.fastest), half_hour: up(f.half_hour), hour: up(f.hour), economy: up(f.economy), minimum: up(f.minimum), unit: 'sat/vB' as const } };
    },
  );

  app.get(
    '/v1/attach-fee-estimate',
    {
      config: { limit: 'uncached_read', cache: { public: 30 } },
      schema: {
        tags: ['market'],
        summary: 'Current XCP fee for one attach',
        description: 'The Counterparty protocol fee one attach would pay now, as a raw XCP quantity in `fee_raw` (XCP is divisible: 100000000 raw = 1 XCP). Display only: it is neither a Bitcoin network fee nor a marketplace fee, and the fee actually charged is the one in force when the block parses the attach (`variable_until_confirmed`). 502/503 upstream_unavailable when Counterparty is unreachable.',
        response: { 200: Ok(AttachFeeResult), ...errorResponses },
      },
    },
    async () => ({ result: { asset: 'XCP' as const, fee_raw: await ctx.chain.counterparty.estimateAttachXcpFee(), variable_until_confirmed: true as const } }),
  );
}
