import { nowSeconds } from '../../clock.js';
import type { Area } from '../../area.js';
import { exactOfferRoutes } from './routes.js';
import { exactOfferHandlers } from './handlers.js';
import { exactOffersWatcher } from './watcher.js';

/** Filling bids: exact authorizations, the seller inbox, accepts (settlement kind `exact_offer`), bulk selection. */
export const exactOffersArea: Area = {
  name: 'exact-offers',
  routes: exactOfferRoutes,
  watchers: () => [exactOffersWatcher()],
  settlementHandlers: (ctx) => ({ exact_offer: exactOfferHandlers(() => nowSeconds(ctx.clock)) }),
};
