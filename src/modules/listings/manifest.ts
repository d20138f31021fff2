import { nowSeconds } from '../../clock.js';
import type { Area } from '../../area.js';
import { listingRoutes } from './routes.js';
import { sellerListingRoutes } from './seller-listings.js';
import { listingsWatcher } from './watcher.js';
import { attachHandlers } from './attach-submit.js';
import { ListingStore } from './store.js';
import { rotationHandlers } from './rotation.js';

/** Sellers' drafts, attaches and listings; its settlements are `attach` and `rotation` (an exposed unit moved); its watcher verifies attaches and follows listed units. */
export const listingsArea: Area = {
  name: 'listings',
  routes: (app, ctx) => {
    listingRoutes(app, ctx);
    sellerListingRoutes(app, ctx);
  },
  watchers: (ctx) => [listingsWatcher(ctx.chain, ctx.logger)],
  settlementHandlers: (ctx) => ({ attach: attachHandlers(new ListingStore(ctx.store.db), () => nowSeconds(ctx.clock)), rotation: rotationHandlers(ctx) }),
};
