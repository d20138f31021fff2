import type { App } from '../../app.js';
import type { Context } from '../../context.js';
import { artistRoutes } from './artists-routes.js';
import { collectionRoutes } from './collections-routes.js';

/** Public reads of the curated catalogue: collections and artists. */
export function catalogRoutes(app: App, ctx: Context): void {
  collectionRoutes(app, ctx);
  artistRoutes(app, ctx);
}
