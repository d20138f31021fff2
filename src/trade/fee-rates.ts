/**
 * Fee rates, owned here: what the market composes at when the caller names no rate, and how a node
 * estimate is rounded (sat/vB, up to 0.1). The floor is the node's own (`estimateFees().minimum`,
 * its relay minimum: 1 sat/vB up to Core 29.0, 0.1 after), never a constant; 0.1 is the lowest rate
 * any request may name (the schemas' `fee_rate` minimum).
 */
import type { Context } from '../context.js';
import { ApiError } from '../http/errors.js';

/** The lowest rate any composition uses, in sat/vB. */
export const MIN_FEE_RATE = 0.1;

/** A node rate rounded up to the 0.1 sat/vB the API speaks. */
export const roundFeeRate = (n: number): number => Math.ceil(n * 10) / 10;

/**
 * The rate to compose at: the caller's, or the chain's half-hour estimate, never below the node's
 * relay floor. `minimum` is the node's own floor (getmempoolinfo: the higher of minrelaytxfee and
 * mempoolminfee). Below it the node refuses what we would compose, so a requested rate under it is
 * refused here, before anything is built or signed.
 */
export async function defaultFeeRate(ctx: Pick<Context, 'chain'>, requested?: number): Promise<number> {
  const f = await ctx.chain.bitcoin.estimateFees();
  if (requested !== undefined) {
    if (requested < f.minimum) {
      throw new ApiError('mempool_rejected', `fee_rate ${requested} sat/vB is below the node's relay floor of ${f.minimum} sat/vB; quote at ${f.minimum} or more`, {
        field: 'body.fee_rate', mempool_policy: 'fee_floor', minimum_fee_rate: f.minimum,
      });
    }
    return requested;
  }
  return Math.max(MIN_FEE_RATE, roundFeeRate(Math.max(f.half_hour, f.minimum)));
}
