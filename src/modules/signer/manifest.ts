import type { Area } from '../../area.js';
import { signerRoutes } from './routes.js';

/** The market signer's public face: its keys and refusal codes. */
export const signerArea: Area = { name: 'signer', routes: signerRoutes };
