/**
 * Offer funding: the unsigned transaction that creates N exact-value funding slots at the
 * bidder's own signing address (outputs 0..N-1, each the offer price, +330 sats for attached
 * delivery), paid from the bidder's spendable coins (src/trade/coins.ts: never a coin with a
 * Counterparty balance, one a settlement claims or one that backs an open offer of the bidder),
 * or from the coins the body names (which may back open offers: `ends_offers` says which end), change last.
 * The wallet signs it (ALL; P2TR DEFAULT) and hands the finalized bytes to /v1/funded-offers.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import type { Context } from '../../context.js';
import { ApiError, insufficientFunds } from '../../http/errors.js';
import { decodeAddress } from '../../bitcoin/address.js';
import { DUST_LIMITS } from '../../bitcoin/dust.js';
import { estimateSize, type InputSpend } from '../../bitcoin/vsize.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { namedCoins, offersEndedBy, spendableCoins } from '../../trade/coins.js';
import { outpointKey } from '../../trade/outpoints.js';
import { feeFor } from '../../trade/compose.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { checkOfferPrice, MAX_FUNDING_SLOTS, slotValue } from './rules.js';

export interface FundingBody {
  price_sats: number;
  slots: number;
  delivery_mode?: 'detached' | 'attached';
  fee_rate?: number;
  funding?: Array<{ txid: string; vout: number }>;
}

export async function composeFunding(ctx: Context, bidder: string, body: FundingBody) {
  const signer = requireAddressRole(bidder, 'signing', ctx.config.NETWORK, 'session address');
  const d = decodeAddress(signer, ctx.config.NETWORK);
  if (!d.ok) throw new Error('checked above');
  checkOfferPrice(body.price_sats, 'body.price_sats');
  if (body.slots < 1 || body.slots > MAX_FUNDING_SLOTS) throw new ApiError('invalid_request', `body.slots must be 1 to ${MAX_FUNDING_SLOTS}`, { field: 'body.slots' });
  const mode = body.delivery_mode ?? 'detached';
  const value = slotValue(body.price_sats, mode);
  const feeRate = await defaultFeeRate(ctx, body.fee_rate);
  const spend: InputSpend = d.family === 'p2tr' ? 'p2tr-key-explicit' : 'p2wpkh';
  const outs = Array<Uint8Array>(body.slots).fill(d.script);
  const pay = value * body.slots;

  const named = !!body.funding;
  const coins = body.funding ? await namedCoins(ctx, signer, body.funding) : await spendableCoins(ctx, signer);
  const picked: typeof coins = [];
  let total = 0;
  let plan: { change: number; fee: number; vsize: number } | null = null;
  for (const c of coins) {
    picked.push(c);
    total += c.value_sats;
    const ins = Array<InputSpend>(picked.length).fill(spend);
    const withChange = estimateSize(ins, [...outs, d.script]).vsize;
    const change = total - pay - feeFor(withChange, feeRate);
    if (change >= DUST_LIMITS[d.family]) {
      plan = { change, fee: feeFor(withChange, feeRate), vsize: withChange };
      break;
    }
    const bare = estimateSize(ins, outs).vsize;
    if (total >= pay + feeFor(bare, feeRate)) {
      plan = { change: 0, fee: total - pay, vsize: bare };
      break;
    }
  }
  if (!plan) {
    const need = pay + feeFor(estimateSize(Array<InputSpend>(Math.max(1, picked.length)).fill(spend), outs).vsize, feeRate);
    throw insufficientFunds(named ? 'the named coins cannot fund these slots' : 'asset-free confirmed BTC cannot fund these slots', need, total);
  }
  const tx = new Transaction({ version: 2 });
  for (const c of picked) tx.addInput({ txid: c.txid, index: c.vout, witnessUtxo: { script: d.script, amount: BigInt(c.value_sats) } });
  for (const o of outs) tx.addOutput({ script: o, amount: BigInt(value) });
  if (plan.change > 0) tx.addOutput({ script: d.script, amount: BigInt(plan.change) });
  return {
    psbt_hex: hex.encode(tx.toPSBT()),
    expected_txid: tx.id,
    signer_address: signer,
    inputs_to_sign: picked.map((_, i) => i),
    sighash: 'ALL' as const,
    price_sats: body.price_sats,
    slot_value_sats: value,
    delivery_mode: mode,
    bids: outs.map((_, vout) => ({ txid: tx.id, vout })),
    network_fee_sats: plan.fee,
    change_sats: plan.change,
    fee_rate: feeRate,
    vsize: plan.vsize,
    ends_offers: named ? await offersEndedBy(ctx.store.db, picked.map((c) => outpointKey(c.txid, c.vout))) : [],
  };
}
