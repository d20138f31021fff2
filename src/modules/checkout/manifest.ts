import { nowSeconds } from '../../clock.js';
import type { Area } from '../../area.js';
import { checkoutRoutes } from './routes.js';
import { checkoutHandlers } from './handlers.js';

/** Buyers' quotes and completions; its settlements are `checkout`. */
export const checkoutArea: Area = {
  name: 'checkout',
  routes: checkoutRoutes,
  settlementHandlers: (ctx) => ({ checkout: checkoutHandlers(() => nowSeconds(ctx.clock)) }),
};
