import type { Area } from '../../area.js';
import { livePageRoutes } from './routes.js';

/** The live market page at `/`: plain HTML, one script and one stylesheet, read from the public API in the browser. */
export const livePageArea: Area = { name: 'live-page', routes: livePageRoutes };
