import { nowSeconds } from '../../clock.js';
import type { Area } from '../../area.js';
import type { Context } from '../../context.js';
import { policyOfferRoutes } from './routes.js';
import { policyAcceptHandlers } from './handlers.js';
import { policyOffersWatcher, lapsePreflights } from './watcher.js';
import { AnchorPool, anchorRefillHandlers } from './anchor-pool.js';
import { expireAlternatives } from './lifecycle.js';
import { claimMarketWallet, MarketWallet } from './market-wallet.js';

/**
 * One market wallet per service context, opened on first use (its directory is created only by
 * a market that needs it) and checked against the one the store records (market-wallet.ts). A
 * refusal is not kept: the next use checks again.
 */
const wallets = new WeakMap<Context, Promise<MarketWallet>>();
export function marketWallet(ctx: Context): Promise<MarketWallet> {
  let w = wallets.get(ctx);
  if (!w) {
    const dir = ctx.config.MARKET_WALLET_DIR;
    w = Promise.resolve()
      .then(() => claimMarketWallet(ctx.store.db, MarketWallet.open(dir, ctx.config.NETWORK), dir))
      .catch((e: unknown) => {
        wallets.delete(ctx);
        throw e;
      });
    wallets.set(ctx, w);
  }
  return w;
}

export const anchorPool = (ctx: Context) => new AnchorPool(ctx, () => marketWallet(ctx));

/** The time-driven part of the area: lapse unplaced preflights, expire alternatives, refill and sweep the anchor pool. */
export async function policyOfferUpkeep(ctx: Context, pool: AnchorPool = anchorPool(ctx)): Promise<string | null> {
  const at = nowSeconds(ctx.clock);
  await ctx.store.db.transaction().execute(async (tx) => {
    await lapsePreflights(tx, at);
    await expireAlternatives(tx, at);
  });
  return pool.refill();
}

/**
 * Collection (policy) offers, `funded_policy_offer_v1`: preflight and placement, soft and hard
 * cancel, the seller's accept (settlement kind `policy_accept`), the anchor pool (kind
 * `anchor_refill`), reads; its watcher follows funding spends and expiries.
 */
export const policyOffersArea: Area = {
  name: 'policy-offers',
  routes: (app, ctx) => policyOfferRoutes(app, ctx, () => marketWallet(ctx)),
  watchers: () => [policyOffersWatcher()],
  settlementHandlers: (ctx) => ({
    policy_accept: policyAcceptHandlers(() => nowSeconds(ctx.clock)),
    anchor_refill: anchorRefillHandlers(() => nowSeconds(ctx.clock)),
  }),
  jobs: (ctx) => {
    const pool = anchorPool(ctx);
    return [{ name: 'policy-offer-upkeep', role: 'policy-offers-upkeep', intervalMs: Math.min(ctx.config.RECOVERY_INTERVAL_MS, 30_000), run: async () => void (await policyOfferUpkeep(ctx, pool)) }];
  },
};
