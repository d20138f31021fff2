/**
 * The exact-offer settlement, as two version-3 (TRUC) transactions:
 *
 * Parent — in 0: the bidder's funding slot (signed ALL by the bidder in advance; it keys the
 * Counterparty message and Counterparty reads its ALL flag); in 1: the seller's asset outpoint
 * (signed ALL by the seller on accept; a co-signed unit by its leaf, DEFAULT by the seller and
 * co-signed by the market signer at accept). out 0: delivery — detached: the detach OP_RETURN naming
 * `receive_address` (at output 0: Counterparty ignores a message preceded by two or more address
 * outputs); attached: 330 sats to `receive_address`, where Counterparty moves the unit (first
 * non-OP_RETURN output). out 1: the seller's proceeds. out 2: the platform fee. The seller pays
 * the platform fee and the network fee out of the price: proceeds = price + the asset output's
 * own sats − platform fee − the parent's fee (`prefunded_fee_sats`).
 *
 * Child (CPFP, only when the fee rate at accept needs more than the parent carries) — in 0: the
 * parent's output 1 (the seller's); out 0: the seller's address, less the child's fee. Version 3
 * on both, so neither party can pin the package; a v3 transaction may spend only confirmed
 * outputs of non-v3 transactions, so the funding slot must be confirmed before an accept.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import type { Network } from '../../bitcoin/networks.js';
import { estimateSize, type InputSpend } from '../../bitcoin/vsize.js';
import { detachOutputScript } from '../../counterparty/attach-detach.js';
import { leafScriptField, type CosignedOutput } from '../../counterparty/cosigned-listing.js';
import { DELIVERY_UTXO_SATS } from '../../trade/rules.js';

export const TRUC_VERSION = 3;
/** Signals replaceability explicitly; TRUC transactions are replaceable anyway. */
const SEQUENCE = 0xfffffffd;

export interface ParentShape {
  slot: { txid: string; vout: number; value: number; script: Uint8Array; spend: InputSpend; tapInternalKey?: Uint8Array | null };
  /** `cosigned`: the unit sits on a co-signed listing output, spent by its leaf. */
  asset: { txid: string; vout: number; value: number; script: Uint8Array; spend: InputSpend; cosigned?: CosignedOutput | null };
  delivery: { mode: 'detached' | 'attached'; address: string; script: Uint8Array | null };
  sellerScript: Uint8Array;
  feeScript: Uint8Array;
  platformFee: number;
  network: Network;
}

export const feeFor = (vsize: number, rate: number) => Math.ceil(vsize * rate);

function deliveryOutput(s: ParentShape): { script: Uint8Array; amount: bigint } {
  if (s.delivery.mode === 'attached') return { script: s.delivery.script!, amount: BigInt(DELIVERY_UTXO_SATS) };
  return { script: detachOutputScript({ input0Txid: s.slot.txid, destination: s.delivery.address, network: s.network }), amount: 0n };
}

export function parentVsize(s: ParentShape): number {
  return estimateSize([s.slot.spend, s.asset.spend], [deliveryOutput(s).script, s.sellerScript, s.feeScript]).vsize;
}

/** The seller's proceeds once the platform fee and `networkFee` are paid out of the price. */
export const proceedsOf = (s: ParentShape, networkFee: number) =>
  s.slot.value + s.asset.value - Number(deliveryOutput(s).amount) - s.platformFee - networkFee;

export function buildParent(s: ParentShape, networkFee: number): { psbt_hex: string; txid: string; proceeds: number } {
  const proceeds = proceedsOf(s, networkFee);
  const tx = new Transaction({ version: TRUC_VERSION, allowUnknownOutputs: true });
  tx.addInput({
    txid: s.slot.txid,
    index: s.slot.vout,
    sequence: SEQUENCE,
    witnessUtxo: { script: s.slot.script, amount: BigInt(s.slot.value) },
    ...(s.slot.tapInternalKey ? { tapInternalKey: s.slot.tapInternalKey } : {}),
  });
  tx.addInput({
    txid: s.asset.txid,
    index: s.asset.vout,
    sequence: SEQUENCE,
    witnessUtxo: { script: s.asset.script, amount: BigInt(s.asset.value) },
    // The leaf only (no tap_internal_key, as on a co-signed listing half): the holder signs the
    // leaf, the market signer adds its own signature at accept, and the witness is
    // [market, holder, leaf, control]. The key path stays the holder's own way out.
    ...(s.asset.cosigned ? { tapLeafScript: leafScriptField(s.asset.cosigned) } : {}),
  });
  tx.addOutput(deliveryOutput(s));
  tx.addOutput({ script: s.sellerScript, amount: BigInt(proceeds) });
  if (s.platformFee > 0) tx.addOutput({ script: s.feeScript, amount: BigInt(s.platformFee) });
  return { psbt_hex: hex.encode(tx.toPSBT()), txid: tx.id, proceeds };
}

export function childVsize(spend: InputSpend, sellerScript: Uint8Array): number {
  return estimateSize([spend], [sellerScript]).vsize;
}

/** The CPFP child: the parent's output 1 back to the seller, less `fee`. */
export function buildChild(parentTxid: string, proceeds: number, sellerScript: Uint8Array, fee: number): { psbt_hex: string; txid: string } {
  const tx = new Transaction({ version: TRUC_VERSION });
  tx.addInput({ txid: parentTxid, index: 1, sequence: SEQUENCE, witnessUtxo: { script: sellerScript, amount: BigInt(proceeds) } });
  tx.addOutput({ script: sellerScript, amount: BigInt(proceeds - fee) });
  return { psbt_hex: hex.encode(tx.toPSBT()), txid: tx.id };
}
