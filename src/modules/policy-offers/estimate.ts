/** Size estimates of a collection-offer child (for quotes and the seller-net estimate shown on every offer). */
import { estimateSize } from '../../bitcoin/vsize.js';
import { scriptFamily } from '../../bitcoin/address.js';

/** Child: the escrow's 2-of-2 leaf, the seller's asset input; delivery, seller and platform-fee outputs. */
export function estimateChildVsize(sellerScript: Uint8Array, withFee = true): number {
  const fam = scriptFamily(sellerScript);
  return estimateSize(['p2tr-2of2-leaf', fam === 'p2tr' ? 'p2tr-key-explicit' : 'p2wpkh'], ['p2tr', sellerScript, ...(withFee ? [sellerScript] : [])]).vsize;
}
