/**
 * Fee rates, owned here: what the market composes at when the caller names no rate, and how a node
 * estimate is rounded (sat/vB, up to 0.1). The floor is the node's own (`estimateFees().minimum`,
 * its relay minimum: 1 sat/vB up to Core 29.0, 0.1 after), never a constant; 0.1 is the lowest rate
 * any request may name (the schemas' `fee_rate` minimum).
 */
import type { Context } from '../context.js';

/** The lowest rate any composition uses, in sat/vB. */
export const MIN_FEE_RATE = 0.1;

/** A node rate rounded up to the 0.1 sat/vB the API speaks. */
export const roundFeeRate = (n: number): number => Math.ceil(n * 10) / 10;

/** The chain's half-hour estimate, never below its relay floor. */
export async function defaultFeeRate(ctx: Pick<Context, 'chain'>): Promise<number> {
  const f = await ctx.chain.bitcoin.estimateFees();
  return Math.max(MIN_FEE_RATE, roundFeeRate(Math.max(f.half_hour, f.minimum)));
}
