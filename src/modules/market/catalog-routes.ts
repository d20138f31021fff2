import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { artistRoutes } from './artists-routes.js';
import { artistProfileRoutes } from './artist-profile-routes.js';
import { collectionRoutes } from './collections-routes.js';
import { bookRoutes } from './book-routes.js';
import { offerTargetRoutes } from './offer-targets-routes.js';
import { holderRoutes } from './holders-routes.js';
import { analyticsRoutes } from './analytics-routes.js';
import { bestOfferRoutes } from './best-offer-routes.js';

/** Public market reads: the curated catalogue (collections, artists), books, offer targets, holders, analytics; and the artist profile edit beside the artist reads. */
export function catalogRoutes(app: App, ctx: Context): void {
  collectionRoutes(app, ctx);
  artistRoutes(app, ctx);
  artistProfileRoutes(app, ctx);
  bookRoutes(app, ctx);
  offerTargetRoutes(app, ctx);
  holderRoutes(app, ctx);
  analyticsRoutes(app, ctx);
  bestOfferRoutes(app, ctx);
}
