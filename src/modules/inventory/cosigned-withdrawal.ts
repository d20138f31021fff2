/**
 * Taking a unit back out of a co-signed output by its key path: the seller alone, at any time.
 *
 *   in 0      the co-signed output, key path (tap_internal_key = the seller key, tap_merkle_root =
 *             the leaf's hash: a wallet tweaks with both), signed DEFAULT/ALL by the seller
 *   in 1..n   the seller's asset-free confirmed coins for the fee, signed DEFAULT/ALL
 *   out 0     330 sats to the seller's address: the transaction carries no message, so
 *             Counterparty moves the unit to this first non-OP_RETURN output
 *   out 1     change to the seller, above dust
 *
 * The market composes it and relays nothing: the seller's wallet broadcasts it. Spending the
 * output ends a listing on it (the listings watcher), and the unit reads as held at the address.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { addressToScript } from '../../bitcoin/address.js';
import { DUST_LIMITS } from '../../bitcoin/dust.js';
import { estimateSize } from '../../bitcoin/vsize.js';
import { buyerCoins } from '../checkout/funding.js';
import { feeFor } from '../checkout/compose.js';
import { cosignedOf } from '../listings/cosigned.js';
import { outpointKey } from '../listings/rules.js';
import { defaultFeeRate } from '../listings/attach-compose.js';

const UNIT_SATS = 330;
const SEQUENCE = 0xfffffffd;

export async function composeWithdrawal(ctx: Context, seller: string, at: { txid: string; vout: number }, feeRateIn?: number) {
  const key = outpointKey(at.txid, at.vout);
  const d = await ctx.store.db
    .selectFrom('listing_drafts')
    .selectAll()
    .where('seller', '=', seller)
    .where('asset_outpoint', '=', key)
    .where('protocol_subtype', '=', 'cosigned')
    .executeTakeFirst();
  if (!d) throw new ApiError('not_found', `${key} is not a co-signed output of your session address`, { outpoint: key });
  const co = cosignedOf({ ...d, seller_key: d.seller_tap_key }, ctx.config.NETWORK)!;
  const out = await ctx.chain.bitcoin.getTxOut(at.txid, at.vout, true);
  if (!out) throw new ApiError('state_changed', `${key} is spent (or not yet seen); nothing to withdraw`, { outpoint: key });
  const sellerScript = addressToScript(seller, ctx.config.NETWORK)!;
  const feeRate = feeRateIn ?? (await defaultFeeRate(ctx));
  const coins = await buyerCoins(ctx, seller);
  const size = (n: number, change: boolean) => estimateSize(Array(n + 1).fill('p2tr-key'), change ? [sellerScript, sellerScript] : [sellerScript]).vsize;
  const picked: typeof coins = [];
  let have = out.value_sats;
  let plan: { change: number; fee: number; vsize: number } | undefined;
  for (const c of [undefined, ...coins]) {
    if (c) {
      picked.push(c);
      have += c.value_sats;
    }
    const withChange = have - UNIT_SATS - feeFor(size(picked.length, true), feeRate);
    if (withChange >= DUST_LIMITS.p2tr) plan = { change: withChange, fee: feeFor(size(picked.length, true), feeRate), vsize: size(picked.length, true) };
    else if (have - UNIT_SATS >= feeFor(size(picked.length, false), feeRate)) plan = { change: 0, fee: have - UNIT_SATS, vsize: size(picked.length, false) };
    if (plan) break;
  }
  if (!plan) {
    const need = UNIT_SATS + feeFor(size(coins.length + 1, false), feeRate);
    throw new ApiError('insufficient_funds', `asset-free BTC of ${seller} cannot pay the withdrawal fee`, { need_sats: need, have_sats: have, shortfall_sats: need - have });
  }

  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({ txid: at.txid, index: at.vout, sequence: SEQUENCE, witnessUtxo: { script: co.script, amount: BigInt(out.value_sats) }, tapInternalKey: co.internalKey, tapMerkleRoot: co.merkleRoot });
  for (const c of picked) {
    tx.addInput({ txid: c.txid, index: c.vout, sequence: SEQUENCE, witnessUtxo: { script: sellerScript, amount: BigInt(c.value_sats) }, tapInternalKey: co.internalKey });
  }
  tx.addOutput({ script: sellerScript, amount: BigInt(UNIT_SATS) });
  if (plan.change > 0) tx.addOutput({ script: sellerScript, amount: BigInt(plan.change) });
  return {
    psbt_hex: hex.encode(tx.toPSBT()),
    expected_txid: tx.id,
    signer_address: seller,
    inputs_to_sign: [0, ...picked.map((_, i) => i + 1)],
    sighash: 'DEFAULT' as const,
    asset_utxo: { txid: at.txid, vout: at.vout, utxo_value_sats: out.value_sats },
    tap_internal_key: hex.encode(co.internalKey),
    tap_merkle_root: hex.encode(co.merkleRoot),
    delivery: { address: seller, vout: 0 as const },
    fee_rate: feeRate,
    network_fee_sats: plan.fee,
    vsize: plan.vsize,
  };
}
