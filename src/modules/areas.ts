import type { Area } from '../area.js';
import { healthArea } from './health/manifest.js';
import { metaArea } from './meta/manifest.js';
import { authArea } from './auth/manifest.js';
import { listingsArea } from './listings/manifest.js';
import { checkoutArea } from './checkout/manifest.js';
import { offersArea } from './offers/manifest.js';
import { exactOffersArea } from './exact-offers/manifest.js';
import { countersArea } from './counters/manifest.js';
import { policyOffersArea } from './policy-offers/manifest.js';
import { signerArea } from './signer/manifest.js';
import { fillsArea } from './fills/manifest.js';
import { inventoryArea } from './inventory/manifest.js';
import { marketArea } from './market/manifest.js';
import { eventsArea } from './events/manifest.js';
import { webhooksArea } from './webhooks/manifest.js';
import { feesArea } from './fees/manifest.js';
import { transactionsArea } from './transactions/manifest.js';
import { devnetArea } from './devnet/manifest.js';
import { livePageArea } from './live-page/manifest.js';

/**
 * Every area of the service, one line each. Order is the order watchers run
 * within a block (rollback runs in reverse) and routes register.
 */
export const AREAS: readonly Area[] = [
  healthArea,
  metaArea,
  authArea,
  listingsArea,
  checkoutArea,
  offersArea,
  exactOffersArea,
  countersArea,
  policyOffersArea,
  signerArea,
  fillsArea,
  inventoryArea,
  marketArea,
  eventsArea,
  webhooksArea,
  feesArea,
  transactionsArea,
  devnetArea,
  livePageArea,
];
