/**
 * Taking a unit back out of a co-signed output by its key path: the seller alone, at any time
 * (the layout: listings/unit-move.ts; in 0 carries tap_internal_key = the seller key and
 * tap_merkle_root = the leaf's hash, which a wallet tweaks with). The market composes it and
 * relays nothing: the seller's wallet broadcasts it. Spending the output ends a listing on it (the
 * listings watcher), and the unit then reads as held at the seller's address.
 */
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { addressToScript } from '../../bitcoin/address.js';
import { cosignedOf } from '../listings/index.js';
import { outpointKey } from '../../trade/outpoints.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { composeUnitMove } from '../listings/index.js';

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
  const move = await composeUnitMove(ctx, {
    seller,
    sellerScript,
    sellerKey: co.internalKey,
    unit: { ...at, value_sats: out.value_sats, script: co.script, spend: 'p2tr-key-explicit', tapMerkleRoot: co.merkleRoot },
    destScript: sellerScript,
    feeRate,
  });
  return {
    psbt_hex: move.psbt_hex,
    expected_txid: move.expected_txid,
    signer_address: seller,
    inputs_to_sign: move.inputs_to_sign,
    sighash: 'DEFAULT' as const,
    asset_utxo: { txid: at.txid, vout: at.vout, utxo_value_sats: out.value_sats },
    tap_internal_key: hex.encode(co.internalKey),
    tap_merkle_root: hex.encode(co.merkleRoot),
    delivery: { address: seller, vout: 0 as const },
    fee_rate: feeRate,
    network_fee_sats: move.network_fee_sats,
    vsize: move.vsize,
  };
}
