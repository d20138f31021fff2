/**
 * The co-signed listing output (`protocol_subtype: cosigned`), pure.
 *
 * The unit sits on a taproot output
 *   internal key  the seller's own x-only key: the key path lets the seller move or withdraw the
 *                 unit alone at any time (a wallet needs tap_internal_key and tap_merkle_root);
 *   one leaf      <seller> CHECKSIGVERIFY <market> CHECKSIG
 *                 witness [market_sig, seller_sig, leaf, control]: the market's signature is
 *                 item 0, the one Counterparty reads the sighash flag from (sighash-flag.ts).
 *
 * The seller's listing half is SINGLE|ANYONECANPAY over the leaf (never the key path: a key-path
 * SINGLE|ANYONECANPAY signature would be a naked listing again). The market signer adds its
 * SIGHASH_DEFAULT signature over the leaf at checkout completion, over the exact transaction the
 * market journals, so the seller's pair cannot be lifted into any other transaction: its leaf
 * fails without a market signature over that very transaction.
 */
import { p2tr, Script, TaprootControlBlock } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { networkParams, type Network } from '../bitcoin/networks.js';
import { TAPSCRIPT_LEAF_VERSION } from '../bitcoin/taproot.js';
import { ESCROW_LEAF_LENGTH, type InputSpend } from '../bitcoin/vsize.js';

export const LISTING_SUBTYPES = ['plain', 'cosigned'] as const;
export type ListingSubtype = (typeof LISTING_SUBTYPES)[number];

export interface CosignedOutput {
  script: Uint8Array;
  address: string;
  internalKey: Uint8Array;
  leaf: Uint8Array;
  control: Uint8Array;
  /** The tree's root (one leaf: its leaf hash), what a key-path signer tweaks with. */
  merkleRoot: Uint8Array;
}

/** The co-signed output of `seller` (x-only) with the market signer's key `market` (x-only). */
export function cosignedOutput(seller: Uint8Array, market: Uint8Array, network: Network): CosignedOutput {
  const leaf = Script.encode([seller, 'CHECKSIGVERIFY', market, 'CHECKSIG']);
  const pay = p2tr(seller, { script: leaf }, networkParams(network), true);
  const entry = pay.tapLeafScript?.[0];
  if (!entry) throw new Error('co-signed output without its leaf');
  return {
    script: pay.script,
    address: pay.address!,
    internalKey: seller,
    leaf,
    control: TaprootControlBlock.encode(entry[0]),
    merkleRoot: tapLeafHash(leaf, TAPSCRIPT_LEAF_VERSION),
  };
}

/** The PSBT field that lets a wallet sign the leaf (BIP-371 tap_leaf_script). */
export const leafScriptField = (o: CosignedOutput): [ReturnType<typeof TaprootControlBlock.decode>, Uint8Array][] => [
  [TaprootControlBlock.decode(o.control), new Uint8Array([...o.leaf, TAPSCRIPT_LEAF_VERSION])],
];

/** The leaf's final witness: the market's signature first (Counterparty reads item 0's flag). */
export function cosignedWitness(o: CosignedOutput, marketSig: Uint8Array, sellerSig: Uint8Array): Uint8Array[] {
  return [marketSig, sellerSig, o.leaf, o.control];
}

/** The leaf spend for the size estimate: two signatures (the seller's 65 bytes), one-leaf tree. */
export const COSIGNED_LEAF_SPEND: InputSpend = { tapscript: { leafScriptLength: ESCROW_LEAF_LENGTH, signatures: 2, controlBlockDepth: 0 } };

export const cosignedJson = (o: CosignedOutput, keyVersion: number) => ({
  address: o.address,
  script_hex: hex.encode(o.script),
  tap_internal_key: hex.encode(o.internalKey),
  tap_merkle_root: hex.encode(o.merkleRoot),
  leaf_script_hex: hex.encode(o.leaf),
  control_block_hex: hex.encode(o.control),
  market_key_version: keyVersion,
});
