/** Size estimates of a collection-offer child (for quotes and the seller-net estimate shown on every offer). */
import { estimateSize, type InputSpend } from '../../bitcoin/vsize.js';
import { scriptFamily } from '../../bitcoin/address.js';

/**
 * Child: the escrow's 2-of-2 leaf, the seller's asset input (by its key, or `unitSpend`: a
 * co-signed unit's leaf); delivery, seller and platform-fee outputs.
 */
export function estimateChildVsize(sellerScript: Uint8Array, withFee = true, unitSpend?: InputSpend): number {
  const fam = scriptFamily(sellerScript);
  const spend = unitSpend ?? (fam === 'p2tr' ? 'p2tr-key-explicit' : 'p2wpkh');
  return estimateSize(['p2tr-2of2-leaf', spend], ['p2tr', sellerScript, ...(withFee ? [sellerScript] : [])]).vsize;
}
