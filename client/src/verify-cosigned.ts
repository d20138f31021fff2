/**
 * Verify before sign for co-signed listings (`protocol_subtype: cosigned`). The client rebuilds
 * the co-signed output itself from the seller's own x-only key and the market signer's key —
 * internal key the seller's (the key path: the seller can always move the unit alone), one leaf
 * `<seller> CHECKSIGVERIFY <market> CHECKSIG` — and checks that the unit goes there, that the
 * draft's `cosigned_output` says the same, and that the listing half offers only that leaf to sign
 * (a key-path SINGLE|ANYONECANPAY signature would be a naked listing again).
 */
import { hex } from '@scure/base';
import { p2tr, Script } from '@scure/btc-signer';
import { expect, params, type Network } from './psbt.js';
import type { Transaction } from '@scure/btc-signer';
import type { CosignedOutput } from './generated/api.js';

export interface CosignedKeys {
  /** The seller's x-only key (hex): the output's internal key. */
  seller: string;
  /** The market signer's current x-only key (hex). */
  market: string;
}

export interface RebuiltCosigned {
  scriptHex: string;
  address: string;
  leafHex: string;
  merkleRootHex: string;
}

export function rebuildCosigned(k: CosignedKeys, network: Network | undefined): RebuiltCosigned {
  const seller = hex.decode(k.seller);
  const leaf = Script.encode([seller, 'CHECKSIGVERIFY', hex.decode(k.market), 'CHECKSIG']);
  const pay = p2tr(seller, { script: leaf }, params(network), true);
  return { scriptHex: hex.encode(pay.script), address: pay.address!, leafHex: hex.encode(leaf), merkleRootHex: hex.encode(pay.tapMerkleRoot) };
}

/** The draft's description of its output must be the one rebuilt here, field by field. */
export function checkCosignedOutput(described: CosignedOutput | undefined, rebuilt: RebuiltCosigned): void {
  expect(!!described, 'a co-signed draft without its cosigned_output');
  expect(described.script_hex === rebuilt.scriptHex && described.address === rebuilt.address, 'the co-signed output is not the one your key and the market key make');
  expect(described.leaf_script_hex === rebuilt.leafHex && described.tap_merkle_root === rebuilt.merkleRootHex, 'the co-signed leaf is not <you> CHECKSIGVERIFY <market> CHECKSIG');
}

/** Input 0 of a listing half spends the co-signed output through its leaf only: no key path offered. */
export function checkLeafHalf(tx: Transaction, rebuilt: RebuiltCosigned): void {
  const in0 = tx.getInput(0);
  expect(!!in0.witnessUtxo && hex.encode(in0.witnessUtxo.script) === rebuilt.scriptHex, 'the listing half does not spend your co-signed output');
  expect(in0.tapInternalKey === undefined && in0.tapKeySig === undefined, 'the listing half offers the key path to sign (a naked listing)');
  const leaves = in0.tapLeafScript ?? [];
  expect(leaves.length === 1, 'the listing half must offer exactly the co-signed leaf');
  const [, script] = leaves[0]!;
  expect(hex.encode(script.subarray(0, script.length - 1)) === rebuilt.leafHex && script[script.length - 1] === 0xc0, 'the listing half offers another leaf than <you> CHECKSIGVERIFY <market> CHECKSIG');
}
