import type { Area } from '../../area.js';
import { catalogRoutes } from './catalog-routes.js';
import { balanceViewWatcher } from './balance-view-watcher.js';

/** Public market reads (collections, artists, books, offer targets, holders, analytics); its watcher keeps the holders' balance view. */
export const marketArea: Area = {
  name: 'market',
  routes: catalogRoutes,
  watchers: (ctx) => [balanceViewWatcher(ctx.store.db, ctx.chain.counterparty, ctx.logger)],
};
