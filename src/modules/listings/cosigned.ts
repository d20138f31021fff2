/**
 * The seller's side of a co-signed listing (`protocol_subtype: cosigned`): the output a draft
 * attaches to, and the checks on the seller's half that a plain listing does not need.
 */
import { hex } from '@scure/base';
import { equalBytes } from '@noble/curves/utils.js';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import type { Network } from '../../bitcoin/networks.js';
import { parsePsbt } from '../../bitcoin/psbt.js';
import { TAPSCRIPT_LEAF_VERSION } from '../../bitcoin/taproot.js';
import { decodeAddress } from '../../bitcoin/address.js';
import { cosignedOutput, type CosignedOutput, type ListingSubtype } from '../../counterparty/cosigned-listing.js';
import { SignerUnavailable } from '../../signer/port.js';
import type { SignerKey } from '../../signer/keys.js';

/** The co-signed output of a draft or listing row; null for a plain one. */
export function cosignedOf(
  r: { protocol_subtype: ListingSubtype; cosign_market_key: string | null; seller_key: string | null },
  network: Network,
): CosignedOutput | null {
  if (r.protocol_subtype !== 'cosigned') return null;
  if (!r.seller_key || !r.cosign_market_key) throw new Error('a co-signed row without its keys');
  return cosignedOutput(hex.decode(r.seller_key), hex.decode(r.cosign_market_key), network);
}

/** A listing row's co-signed output (null for a plain listing). */
export const listingCosigned = (l: { protocol_subtype: ListingSubtype; cosign_market_key: string | null; cosign_seller_key: string | null }, network: Network) =>
  cosignedOf({ ...l, seller_key: l.cosign_seller_key }, network);

/**
 * A co-signed draft needs a P2TR seller that gave its internal key (the output's key path is
 * that key, so the seller can always move the unit alone) and the market signer's current key.
 */
export async function cosignKeys(ctx: Context, seller: string, sellerKey: Uint8Array | null): Promise<{ key: SignerKey }> {
  const d = decodeAddress(seller, ctx.config.NETWORK);
  if (!d.ok || d.family !== 'p2tr') {
    throw new ApiError('unsupported_address_type', 'a co-signed listing needs a P2TR seller (the output key path is the seller key)', { field: 'body.seller' });
  }
  if (!sellerKey) {
    throw new ApiError('invalid_request', 'a co-signed listing needs body.seller_tap_internal_key: the co-signed output is built on that key', { field: 'body.seller_tap_internal_key' });
  }
  try {
    return { key: (await ctx.signer.info()).current };
  } catch (e) {
    const why = e instanceof SignerUnavailable || e instanceof Error ? e.message : String(e);
    throw new ApiError('service_unavailable', `co-signed listings are unavailable: ${why}`, { dependency: 'market_signer', retry_after_seconds: 5 });
  }
}

/**
 * The seller's co-signed half carries exactly one signature: by the seller key, over the
 * output's leaf (BIP-342, SINGLE|ANYONECANPAY; psbt-verify checks the digest and hash type).
 * A key-path signature is refused outright: SINGLE|ANYONECANPAY on the key path would let
 * anyone who saw it take the unit without the market, the very thing the kind exists to stop.
 */
export function checkCosignedHalf(psbtHex: string, o: CosignedOutput, field: string): void {
  const p = parsePsbt(psbtHex);
  if (!p.ok) throw new ApiError('invalid_transaction', `${field}: ${p.error}`, { field });
  const input = p.tx.getInput(0);
  const bad = (why: string) => new ApiError('signature_invalid', `${field}: ${why}`, { field });
  if (input.tapKeySig || input.finalScriptWitness?.length || input.partialSig?.length) {
    throw bad('a co-signed listing is signed over its leaf only; a key-path or final signature here would sell the unit without the market co-signature');
  }
  const leafHash = tapLeafHash(o.leaf, TAPSCRIPT_LEAF_VERSION);
  const sigs = input.tapScriptSig ?? [];
  if (sigs.length !== 1 || !equalBytes(sigs[0]![0].leafHash, leafHash) || !equalBytes(sigs[0]![0].pubKey, o.internalKey)) {
    throw bad('the half must carry one script-path signature by the seller key over the co-signed leaf');
  }
}
