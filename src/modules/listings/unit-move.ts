/**
 * A unit moved between two outputs of one seller by one transaction the seller alone signs:
 *
 *   in 0      the unit's output (the seller's address, or a co-signed output by its key path)
 *   in 1..n   the seller's asset-free confirmed coins for the fee
 *   out 0     330 sats to the destination: the transaction carries no message, so Counterparty
 *             moves the unit to this first non-OP_RETURN output
 *   out 1     change to the seller, above dust
 *
 * Used to move a unit attached at the seller's address into its co-signed output (a co-signed
 * listing of an already attached unit) and to withdraw it back by the key path.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { DUST_LIMITS } from '../../bitcoin/dust.js';
import { estimateSize, type InputSpend } from '../../bitcoin/vsize.js';
import { buyerCoins } from '../../trade/coins.js';
import { feeFor } from '../../trade/compose.js';
import { outpointKey } from '../../trade/outpoints.js';
import { ASSET_UTXO_SATS } from './templates.js';

const SEQUENCE = 0xfffffffd;

export interface UnitMove {
  psbt_hex: string;
  expected_txid: string;
  inputs_to_sign: number[];
  /** Every input's `txid:vout` (the journal's claims). */
  inputs: string[];
  network_fee_sats: number;
  vsize: number;
}

export async function composeUnitMove(
  ctx: Context,
  p: {
    seller: string;
    sellerScript: Uint8Array;
    /** The seller's x-only key for its P2TR coins (and the unit's key path). */
    sellerKey: Uint8Array | null;
    unit: { txid: string; vout: number; value_sats: number; script: Uint8Array; spend: InputSpend; tapMerkleRoot?: Uint8Array };
    destScript: Uint8Array;
    feeRate: number;
  },
): Promise<UnitMove> {
  const coinSpend: InputSpend = p.sellerKey ? 'p2tr-key-explicit' : 'p2wpkh';
  const coins = await buyerCoins(ctx, p.seller);
  const size = (n: number, change: boolean) => estimateSize([p.unit.spend, ...Array<InputSpend>(n).fill(coinSpend)], change ? [p.destScript, p.sellerScript] : [p.destScript]).vsize;
  const picked: typeof coins = [];
  let have = p.unit.value_sats;
  let plan: { change: number; fee: number; vsize: number } | undefined;
  for (const c of [undefined, ...coins]) {
    if (c) {
      picked.push(c);
      have += c.value_sats;
    }
    const [vc, vn] = [size(picked.length, true), size(picked.length, false)];
    const change = have - ASSET_UTXO_SATS - feeFor(vc, p.feeRate);
    if (change >= DUST_LIMITS[p.sellerKey ? 'p2tr' : 'p2wpkh']) plan = { change, fee: feeFor(vc, p.feeRate), vsize: vc };
    else if (have - ASSET_UTXO_SATS >= feeFor(vn, p.feeRate)) plan = { change: 0, fee: have - ASSET_UTXO_SATS, vsize: vn };
    if (plan) break;
  }
  if (!plan) {
    const need = ASSET_UTXO_SATS + feeFor(size(coins.length + 1, false), p.feeRate);
    throw new ApiError('insufficient_funds', `asset-free BTC of ${p.seller} cannot pay the move of the unit`, { need_sats: need, have_sats: have, shortfall_sats: need - have });
  }
  const tx = new Transaction({ allowUnknownOutputs: true });
  const key = p.sellerKey ? { tapInternalKey: p.sellerKey } : {};
  tx.addInput({
    txid: p.unit.txid,
    index: p.unit.vout,
    sequence: SEQUENCE,
    witnessUtxo: { script: p.unit.script, amount: BigInt(p.unit.value_sats) },
    ...key,
    ...(p.unit.tapMerkleRoot ? { tapMerkleRoot: p.unit.tapMerkleRoot } : {}),
  });
  for (const c of picked) tx.addInput({ txid: c.txid, index: c.vout, sequence: SEQUENCE, witnessUtxo: { script: p.sellerScript, amount: BigInt(c.value_sats) }, ...key });
  tx.addOutput({ script: p.destScript, amount: BigInt(ASSET_UTXO_SATS) });
  if (plan.change > 0) tx.addOutput({ script: p.sellerScript, amount: BigInt(plan.change) });
  return {
    psbt_hex: hex.encode(tx.toPSBT()),
    expected_txid: tx.id,
    inputs_to_sign: [0, ...picked.map((_, i) => i + 1)],
    inputs: [outpointKey(p.unit.txid, p.unit.vout), ...picked.map((c) => outpointKey(c.txid, c.vout))],
    network_fee_sats: plan.fee,
    vsize: plan.vsize,
  };
}
