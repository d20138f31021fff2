/**
 * `funded_policy_offer_v1`: the transactions of a collection (policy) offer, pure.
 *
 * Parent (version 3, zero fee, held unbroadcast until a seller accepts):
 *   in  0..n-1  the bidder's funding inputs (asset-free, confirmed, SegWit: the parent's txid is
 *               known before anyone signs, so the children can be pre-signed over it), ALL
 *   in  n       one market anchor (a small market-wallet UTXO; signed by the market only when an
 *               accept is journaled)
 *   out 0       the escrow: `max_price + 330` sats to a taproot output with no key path (NUMS
 *               internal key) and two leaves,
 *                 accept: <bidder> CHECKSIGVERIFY <market> CHECKSIG   witness [market, bidder, leaf, control]
 *                 refund: <csv> CHECKSEQUENCEVERIFY DROP <bidder> CHECKSIG  (the bidder alone, if
 *                         a parent ever confirms without its child)
 *   out 1       the anchor's value back to the market wallet (the pool refills itself)
 *   out 2       the bidder's change, when above dust
 *
 * Child (version 3), one per accept:
 *   in  0  the escrow: the bidder's pre-signature (SINGLE|ANYONECANPAY, over in 0 and out 0 only)
 *          and the market signer's co-signature (SIGHASH_DEFAULT, 64 bytes) FIRST in the witness,
 *          so Counterparty reads an ALL flag on input 0
 *   in  1  the seller's attached, confirmed, one-unit asset UTXO (seller signs ALL/DEFAULT; a unit
 *          on the seller's co-signed listing output is spent by its leaf, the seller's signature
 *          and the market signer's DEFAULT co-signature over this exact child)
 *   out 0  delivery: `330 + (max_price − price)` sats to the bidder's delivery address. The child
 *          carries no message, so Counterparty MOVES the unit to this first non-OP_RETURN output;
 *          the bidder's own signature commits to it, so not even the market can redirect it, and
 *          an alternative cheaper than the escrow's maximum refunds the difference here.
 *   out 1  the seller: price − platform fee − package fee + the asset UTXO's own sats
 *   out 2  the platform fee (absent when zero)
 */
import { p2tr, Script, TAPROOT_UNSPENDABLE_KEY, TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { equalBytes } from '@noble/curves/utils.js';
import { networkParams, type Network } from '../bitcoin/networks.js';
import { TAPSCRIPT_LEAF_VERSION, verifySchnorr } from '../bitcoin/taproot.js';

/** What the market's protocol verifier refuses (the `refusal_code` values beside the market signer's own). */
export const VERIFIER_REFUSAL_CODES = [
  'presignature_missing',
  'presignature_invalid',
  'presignature_sighash',
  'unit_outside_policy',
  'unit_not_one_unit',
  'unit_unconfirmed',
  'unit_unattached',
  'unit_not_owned',
  'funding_spent',
  'seller_net_below_minimum',
  'funding_set_closed',
] as const;

export const POLICY_PROTOCOL_VERSION = 'funded_policy_offer_v1' as const;
export const TRUC_VERSION = 3;
/** The escrow's refund leaf: the bidder alone, about a week after a parent confirmed without its child. */
export const REFUND_CSV_BLOCKS = 1008;
/** Sequence of every input of the parent and the child (non-final, no relative lock). */
export const POLICY_SEQUENCE = 0xfffffffd;
/** The bidder's pre-signature hash type: SINGLE|ANYONECANPAY. */
export const PRESIGN_SIGHASH = 0x83;
/** The unit's output at the bidder, the Counterparty move destination. */
export const DELIVERY_SATS = 330;

export interface Escrow {
  script: Uint8Array;
  address: string;
  leaf: Uint8Array;
  control: Uint8Array;
  refundLeaf: Uint8Array;
  refundControl: Uint8Array;
  csv: number;
}

/** The escrow of a funding set: the bidder's and the market's x-only keys. */
export function policyEscrow(bidder: Uint8Array, market: Uint8Array, network: Network, csv = REFUND_CSV_BLOCKS): Escrow {
  const leaf = Script.encode([bidder, 'CHECKSIGVERIFY', market, 'CHECKSIG']);
  const refundLeaf = Script.encode([csv, 'CHECKSEQUENCEVERIFY', 'DROP', bidder, 'CHECKSIG']);
  const pay = p2tr(TAPROOT_UNSPENDABLE_KEY, [{ script: leaf }, { script: refundLeaf }], networkParams(network), true);
  const control = (s: Uint8Array) => {
    const entry = pay.tapLeafScript!.find(([, x]) => equalBytes(x.subarray(0, -1), s));
    if (!entry) throw new Error('escrow leaf missing from its own tree');
    return TaprootControlBlock.encode(entry[0]);
  };
  return { script: pay.script, address: pay.address!, leaf, control: control(leaf), refundLeaf, refundControl: control(refundLeaf), csv };
}

export interface Prevout {
  txid: string;
  vout: number;
  amount: bigint;
  script: Uint8Array;
}

const newTx = () => new Transaction({ version: TRUC_VERSION, allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });

const addInput = (tx: Transaction, p: Prevout) =>
  tx.addInput({ txid: p.txid, index: p.vout, sequence: POLICY_SEQUENCE, witnessUtxo: { script: p.script, amount: p.amount } });

export interface ParentShape {
  funding: Prevout[];
  anchor: Prevout;
  escrowScript: Uint8Array;
  escrowValue: number;
  /** The market wallet: out 1 returns the anchor's value. */
  anchorReturnScript: Uint8Array;
  changeScript: Uint8Array;
  /** Bidder change (0: none; what is left over then goes to the package as fee). */
  change: number;
}

/** The unsigned parent (version 3). */
export function buildPolicyParent(s: ParentShape): Transaction {
  const tx = newTx();
  for (const f of s.funding) addInput(tx, f);
  addInput(tx, s.anchor);
  tx.addOutput({ script: s.escrowScript, amount: BigInt(s.escrowValue) });
  tx.addOutput({ script: s.anchorReturnScript, amount: s.anchor.amount });
  if (s.change > 0) tx.addOutput({ script: s.changeScript, amount: BigInt(s.change) });
  return tx;
}

/** The bidder's delivery output for an alternative at `price`: the unit's 330 sats plus the escrow's excess over that price. */
export const deliveryAmount = (escrowValue: number, price: number) => escrowValue - price;

/** The child as the bidder pre-signs it: input 0 the escrow, output 0 its delivery; nothing else is committed. */
export function presignTemplate(e: Escrow, parentTxid: string, escrowValue: number, deliveryScript: Uint8Array, price: number): Transaction {
  const tx = newTx();
  tx.addInput({
    txid: parentTxid,
    index: 0,
    sequence: POLICY_SEQUENCE,
    witnessUtxo: { script: e.script, amount: BigInt(escrowValue) },
    tapLeafScript: [[TaprootControlBlock.decode(e.control), new Uint8Array([...e.leaf, TAPSCRIPT_LEAF_VERSION])]],
    sighashType: PRESIGN_SIGHASH,
  });
  tx.addOutput({ script: deliveryScript, amount: BigInt(deliveryAmount(escrowValue, price)) });
  return tx;
}

/** The BIP-341 digest the bidder's pre-signature signs (the same for the template and any child built from it). */
export function presignDigest(e: Escrow, parentTxid: string, escrowValue: number, deliveryScript: Uint8Array, price: number): Uint8Array {
  const t = presignTemplate(e, parentTxid, escrowValue, deliveryScript, price);
  return t.preimageWitnessV1(0, [e.script], PRESIGN_SIGHASH, [BigInt(escrowValue)], undefined, e.leaf, TAPSCRIPT_LEAF_VERSION);
}

/** Why a pre-signature is refused, or undefined when it is the bidder's SINGLE|ANYONECANPAY signature over the digest. */
export function checkPresignature(sig: Uint8Array, digest: Uint8Array, bidder: Uint8Array): string | undefined {
  if (sig.length !== 65) return `a pre-signature is 65 bytes (64 + hash type 0x83), got ${sig.length}`;
  if (sig[64] !== PRESIGN_SIGHASH) return `pre-signature hash type 0x${sig[64]!.toString(16).padStart(2, '0')}, expected 0x83 (SINGLE|ANYONECANPAY)`;
  return verifySchnorr(sig.subarray(0, 64), digest, bidder) ? undefined : 'the pre-signature does not verify for the bidder key over this alternative';
}

export interface ChildShape {
  escrow: Escrow;
  parentTxid: string;
  escrowValue: number;
  deliveryScript: Uint8Array;
  price: number;
  asset: Prevout;
  sellerScript: Uint8Array;
  sellerSats: number;
  feeScript: Uint8Array;
  platformFee: number;
}

/** The unsigned child of an accept (version 3). */
export function buildPolicyChild(s: ChildShape): Transaction {
  const tx = newTx();
  tx.addInput({ txid: s.parentTxid, index: 0, sequence: POLICY_SEQUENCE, witnessUtxo: { script: s.escrow.script, amount: BigInt(s.escrowValue) } });
  addInput(tx, s.asset);
  tx.addOutput({ script: s.deliveryScript, amount: BigInt(deliveryAmount(s.escrowValue, s.price)) });
  tx.addOutput({ script: s.sellerScript, amount: BigInt(s.sellerSats) });
  if (s.platformFee > 0) tx.addOutput({ script: s.feeScript, amount: BigInt(s.platformFee) });
  return tx;
}

/** Input 0's final witness: the market's signature first (Counterparty reads its flag), then the bidder's. */
export function escrowWitness(e: Escrow, marketSig: Uint8Array, bidderSig: Uint8Array): Uint8Array[] {
  return [marketSig, bidderSig, e.leaf, e.control];
}

/** The refund leaf's witness, for the bidder's own tools and the docs. */
export function refundWitness(e: Escrow, bidderSig: Uint8Array): Uint8Array[] {
  return [bidderSig, e.refundLeaf, e.refundControl];
}

export const escrowJson = (e: Escrow) => ({
  address: e.address,
  script_hex: hex.encode(e.script),
  accept_leaf_hex: hex.encode(e.leaf),
  accept_control_block_hex: hex.encode(e.control),
  refund_leaf_hex: hex.encode(e.refundLeaf),
  refund_control_block_hex: hex.encode(e.refundControl),
  refund_csv_blocks: e.csv,
  internal_key_hex: hex.encode(TAPROOT_UNSPENDABLE_KEY),
});
