import type { Area } from '../../area.js';
import { eventRoutes } from './routes.js';

/** The public feed and the owner feeds, derived from the rows. */
export const eventsArea: Area = { name: 'events', routes: eventRoutes };
