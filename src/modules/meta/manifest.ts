import type { Area } from '../../area.js';
import { metaRoutes } from './routes.js';

/** GET /v1/meta: the network, versions, fee floor, signer keys and limits a client checks once. */
export const metaArea: Area = { name: 'meta', routes: metaRoutes };
