import fs from 'node:fs';
import type { Network } from '../bitcoin/networks.js';
import { DecisionLog } from './decisions.js';
import { SignerKeys } from './keys.js';
import { ListingDecisionLog } from './listing-decisions.js';
import { MarketSigner } from './service.js';

/** Opens the signer over its own directory (keys.json, decisions.sqlite, listing-decisions.sqlite). */
export function openSigner(dir: string, network: Network, now: () => number = () => Math.floor(Date.now() / 1000)): { signer: MarketSigner; close(): void } {
  // The directory first: the decision log opens its file in it (a fresh DATA_DIR has no signer/ yet).
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const log = new DecisionLog(dir);
  const listings = new ListingDecisionLog(dir);
  const signer = new MarketSigner(SignerKeys.open(dir, now), log, now, listings, network);
  return {
    signer,
    close: () => {
      log.close();
      listings.close();
    },
  };
}
