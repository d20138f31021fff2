/**
 * The two unsigned PSBTs of the seller's side (docs/transactions.md):
 *
 *   Attach:  in 0..n   BTC UTXOs of asset_source (in 0 keys the OP_RETURN; signed ALL)
 *            out 0     330 sats to the seller: the new asset UTXO (destination_vout 0)
 *            out 1     OP_RETURN attach message "ASSET|QUANTITY|0"
 *            out 2     change to asset_source, when above its dust limit
 *
 *   Listing: in 0      the asset UTXO (witnessUtxo 330 sats, tapInternalKey for P2TR when known)
 *            out 0     price_sats to the seller; signed SINGLE|ANYONECANPAY (0x83)
 *
 * Pure: no I/O. Sizes are upper bounds (bitcoin/vsize.ts) so the fee never undershoots the rate.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { estimateSize, type InputSpend } from '../../bitcoin/vsize.js';
import { attachOutputScript } from '../../counterparty/attach-detach.js';
import { leafScriptField, type CosignedOutput } from '../../counterparty/cosigned-listing.js';

/** The asset output: segwit dust for P2WPKH and P2TR alike. */
export const ASSET_UTXO_SATS = 330;

export { DUST_LIMITS as DUST_SATS } from '../../bitcoin/dust.js';

export type SourceFamily = 'p2pkh' | 'p2wpkh' | 'p2tr';

export interface FundingInput {
  txid: string;
  vout: number;
  value_sats: number;
  family: SourceFamily;
  /** The output script the input spends (asset_source's). */
  script: Uint8Array;
  /** Raw previous transaction (hex), required for P2PKH (nonWitnessUtxo). */
  prev_tx_hex?: string;
  /** x-only internal key for P2TR inputs, when the caller gave it. */
  tap_internal_key?: Uint8Array;
}

/** Attach inputs are signed ALL: a taproot key-path signature then carries an explicit hash type (65 bytes). */
const spendOf = (f: SourceFamily): InputSpend => (f === 'p2tr' ? 'p2tr-key-explicit' : f);

/** Virtual size (upper bound) of the signed attach with these inputs and output scripts. */
export function estimateVsize(inputs: readonly SourceFamily[], outputScriptLens: readonly number[]): number {
  return estimateSize(inputs.map(spendOf), outputScriptLens.map((n) => new Uint8Array(n))).vsize;
}

export const feeFor = (vsize: number, feeRate: number) => Math.ceil(vsize * feeRate);

export interface AttachPlan {
  inputs: FundingInput[];
  change_sats: number;
  network_fee_sats: number;
  vsize: number;
}

/**
 * Picks inputs (in the given order: the caller puts explicit funding first, then largest
 * first) until they pay the asset output and the fee; adds change when it is above dust.
 * Returns null with what was needed when the coins do not cover it.
 */
export function planAttach(p: {
  coins: readonly FundingInput[];
  feeRate: number;
  sellerScriptLen: number;
  opReturnLen: number;
  changeScriptLen: number;
  changeDust: number;
}): AttachPlan | { short: true; need_sats: number; have_sats: number } {
  const picked: FundingInput[] = [];
  let total = 0;
  let need = 0;
  for (const c of p.coins) {
    picked.push(c);
    total += c.value_sats;
    const fams = picked.map((i) => i.family);
    const feeNoChange = feeFor(estimateVsize(fams, [p.sellerScriptLen, p.opReturnLen]), p.feeRate);
    const vsizeChange = estimateVsize(fams, [p.sellerScriptLen, p.opReturnLen, p.changeScriptLen]);
    const feeChange = feeFor(vsizeChange, p.feeRate);
    need = ASSET_UTXO_SATS + feeNoChange;
    const change = total - ASSET_UTXO_SATS - feeChange;
    if (change >= p.changeDust) return { inputs: picked, change_sats: change, network_fee_sats: feeChange, vsize: vsizeChange };
    if (total >= need) {
      // No change worth an output: the remainder goes to the fee.
      return { inputs: picked, change_sats: 0, network_fee_sats: total - ASSET_UTXO_SATS, vsize: estimateVsize(fams, [p.sellerScriptLen, p.opReturnLen]) };
    }
  }
  if (picked.length === 0) need = ASSET_UTXO_SATS + feeFor(estimateVsize(['p2wpkh'], [p.sellerScriptLen, p.opReturnLen]), p.feeRate);
  return { short: true, need_sats: need, have_sats: total };
}

/** The attach OP_RETURN for this plan (keyed by the txid of input 0). */
export function attachOpReturn(input0Txid: string, asset: string, quantityRaw: string): Uint8Array {
  return attachOutputScript({ input0Txid, asset, quantity: BigInt(quantityRaw), destinationVout: 0 });
}

/** The unsigned attach PSBT; `expected_txid` is its txid when every input is segwit. */
export function buildAttachPsbt(p: {
  plan: AttachPlan;
  sellerScript: Uint8Array;
  opReturn: Uint8Array;
  changeScript: Uint8Array;
}): { psbt_hex: string; expected_txid: string | null } {
  const tx = new Transaction({ allowUnknownOutputs: true });
  for (const i of p.plan.inputs) {
    const base = { txid: i.txid, index: i.vout, sequence: 0xfffffffd };
    if (i.family === 'p2pkh') {
      if (!i.prev_tx_hex) throw new Error(`attach: P2PKH input ${i.txid}:${i.vout} needs its previous transaction`);
      tx.addInput({ ...base, nonWitnessUtxo: hex.decode(i.prev_tx_hex) });
    } else {
      tx.addInput({
        ...base,
        witnessUtxo: { script: i.script, amount: BigInt(i.value_sats) },
        ...(i.tap_internal_key ? { tapInternalKey: i.tap_internal_key } : {}),
      });
    }
  }
  tx.addOutput({ script: p.sellerScript, amount: BigInt(ASSET_UTXO_SATS) });
  tx.addOutput({ script: p.opReturn, amount: 0n });
  if (p.plan.change_sats > 0) tx.addOutput({ script: p.changeScript, amount: BigInt(p.plan.change_sats) });
  const segwitOnly = p.plan.inputs.every((i) => i.family !== 'p2pkh');
  return { psbt_hex: hex.encode(tx.toPSBT()), expected_txid: segwitOnly ? tx.id : null };
}

/** The unsigned listing half: the asset UTXO paying `price_sats` back to the seller. */
export function buildListingPsbt(p: {
  txid: string;
  vout: number;
  utxoValueSats: number;
  sellerScript: Uint8Array;
  priceSats: number;
  tapInternalKey?: Uint8Array | null;
  /**
   * Co-signed: the unit's output. The half then spends it by its leaf only (tapLeafScript, and
   * no tapInternalKey: a wallet must not add a key-path signature a sniper could use alone).
   */
  cosigned?: CosignedOutput | null;
}): string {
  const tx = new Transaction({ allowUnknownOutputs: true });
  const co = p.cosigned;
  tx.addInput({
    txid: p.txid,
    index: p.vout,
    witnessUtxo: { script: co ? co.script : p.sellerScript, amount: BigInt(p.utxoValueSats) },
    sighashType: 0x83,
    ...(co ? { tapLeafScript: leafScriptField(co) } : p.tapInternalKey ? { tapInternalKey: p.tapInternalKey } : {}),
  });
  tx.addOutput({ script: p.sellerScript, amount: BigInt(p.priceSats) });
  return hex.encode(tx.toPSBT());
}
