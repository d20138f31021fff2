/**
 * Two ways to cancel a collection offer.
 *
 * Soft (`/cancel`): the path names ONE alternative (po_…) of the session's; the body's BIP-322
 * signature over `cancelMessage(parent_txid)` (the specification's text, which names the parent)
 * proves the signer controls the funding. The market signer verifies that signature itself and
 * records a refusal of that alternative (parent txid + offer id) in its own log, linearized with
 * co-signing: a cancel recorded first stands forever (and the bidder gets a receipt signed by the
 * market key over the parent txid, the offer id and `recorded_at`, so a later co-signature of
 * that alternative would be provable misconduct); a co-signature released first for the parent
 * makes the answer `already_signed: true`, and only the hard cancel can still stop that package.
 * The siblings stay on the book and acceptable; once every alternative is cancelled
 * (`funding_cancelled`) the set ends and its anchor goes to the next sweep.
 *
 * Hard (`/cancel-transaction`): the unsigned self-send of every still-unspent funding input back
 * to the bidder. Once it is mined, every alternative dies on chain (the watcher retires them).
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, feeExceedsValue, notFound } from '../../http/errors.js';
import { decodeAddress } from '../../bitcoin/address.js';
import { DUST_LIMITS } from '../../bitcoin/dust.js';
import { verifyMessage } from '../../bitcoin/message-signature.js';
import { estimateSize } from '../../bitcoin/vsize.js';
import { feeFor } from '../../trade/compose.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { alternativeStates, cancelAlternative, type FundingSetRow, type PolicyOfferRow } from './lifecycle.js';
import { cancelMessage } from './rules.js';
import type { SignerGate } from './signer-gate.js';
import { fundingOutpoints } from './view.js';

/** The funding set an offer id (po_…) or funding set id (pf_…) names, the session's own. */
export async function setOf(ctx: Context, bidder: string, id: string): Promise<FundingSetRow> {
  const db = ctx.store.db;
  const setId = id.startsWith('po_') ? (await db.selectFrom('policy_offers').select('funding_set_id').where('id', '=', id).executeTakeFirst())?.funding_set_id : id;
  const set = setId ? await db.selectFrom('policy_funding_sets').selectAll().where('id', '=', setId).executeTakeFirst() : undefined;
  if (!set || set.bidder !== bidder || set.state === 'awaiting_signatures' || set.state === 'lapsed') throw notFound('collection offer');
  return set;
}

const invalidation = (set: FundingSetRow) => ({ type: 'spend_funding_input' as const, outpoints: fundingOutpoints(set).map(({ txid, vout }) => ({ txid, vout })) });

/** The alternative a path id names (po_…), the session's own, with its funding set. */
async function alternativeOf(ctx: Context, bidder: string, id: string): Promise<{ offer: PolicyOfferRow; set: FundingSetRow }> {
  const offer = id.startsWith('po_') ? await ctx.store.db.selectFrom('policy_offers').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
  if (!offer) {
    const hint = id.startsWith('pf_') ? ': a soft cancel names one alternative (po_…); cancel each, or spend the funding with /cancel-transaction' : '';
    throw new ApiError('not_found', `No such collection offer${hint}`);
  }
  return { offer, set: await setOf(ctx, bidder, offer.funding_set_id) };
}

export async function softCancel(ctx: Context, gate: SignerGate, bidder: string, id: string, body: { address: string; signature: string }) {
  await gate.require();
  const { offer, set } = await alternativeOf(ctx, bidder, id);
  if (body.address !== set.bidder) throw new ApiError('forbidden', 'body.address must be the bidder address that placed the offer', { field: 'body.address' });
  const v = verifyMessage({ address: body.address, message: cancelMessage(set.parent_txid), signatureBase64: body.signature, network: ctx.config.NETWORK, method: 'BIP-322' });
  if (!v.ok) throw new ApiError('signature_invalid', `body.signature: ${v.detail}`, { field: 'body.signature', reason: v.reason });
  const r = await gate.call(() => ctx.signer.cancel({ parent_txid: set.parent_txid, offer_id: offer.id, address: body.address, signature: body.signature }));
  if (r.cancelled) {
    const now = nowSeconds(ctx.clock);
    // A no-op when the alternative already left `active` (a repeat, or it expired meanwhile): the signer's record stands either way.
    await ctx.store.db.transaction().execute((tx) => cancelAlternative(tx, set, offer, JSON.stringify({ recorded_at: r.recorded_at, receipt: r.receipt }), now));
  }
  const { states } = await alternativeStates(ctx.store.db, set.id);
  return {
    parent_txid: set.parent_txid,
    funding_set_id: set.id,
    offer_id: offer.id,
    cancelled: r.cancelled,
    recorded_at: r.recorded_at,
    funding_cancelled: states.every((st) => st === 'cancelled'),
    already_signed: r.already_signed,
    receipt: r.receipt,
    bitcoin_invalidation: invalidation(set),
  };
}

export async function cancelTransaction(ctx: Context, gate: SignerGate, bidder: string, id: string, body: { fee_rate?: number }) {
  await gate.require();
  const set = await setOf(ctx, bidder, id);
  const d = decodeAddress(set.bidder, ctx.config.NETWORK);
  if (!d.ok) throw new Error('stored bidder address does not decode');
  const all = fundingOutpoints(set);
  const found = await Promise.all(all.map((f) => ctx.chain.bitcoin.getTxOut(f.txid, f.vout, true)));
  const unspent = all.filter((_, i) => !!found[i]);
  if (!unspent.length) throw new ApiError('state_changed', 'every funding input is already spent: the offer is dead on chain', { funding_set_id: set.id });
  const rate = await defaultFeeRate(ctx, body.fee_rate);
  const spend = d.family === 'p2tr' ? 'p2tr-key' : 'p2wpkh';
  const vsize = estimateSize(unspent.map(() => spend), [d.script]).vsize;
  const fee = feeFor(vsize, rate);
  const total = unspent.reduce((s, f) => s + f.value_sats, 0);
  const output = total - fee;
  if (output < DUST_LIMITS[d.family]) {
    // Nothing was built and a higher rate (what fee_floor would ask for) only makes it worse: say
    // so, with the highest rate at which the coins still keep a spendable output.
    const dust = DUST_LIMITS[d.family];
    let maxRate = Math.floor(((total - dust) / vsize) * 10) / 10;
    while (maxRate > 0 && total - feeFor(vsize, maxRate) < dust) maxRate = Math.round((maxRate - 0.1) * 10) / 10;
    throw feeExceedsValue('the funding inputs cannot pay this cancel', {
      have_sats: total, need_sats: fee + dust, fee_rate: rate, network_fee_sats: fee, ...(maxRate >= 0.1 ? { maximum_fee_rate: maxRate } : {}),
    });
  }
  const tx = new Transaction({ version: 2 });
  for (const f of unspent) tx.addInput({ txid: f.txid, index: f.vout, sequence: 0xfffffffd, witnessUtxo: { script: d.script, amount: BigInt(f.value_sats) } });
  tx.addOutput({ script: d.script, amount: BigInt(output) });
  return {
    parent_txid: set.parent_txid,
    funding_id: set.id,
    funding_inputs: unspent,
    psbt_hex: hex.encode(tx.toPSBT()),
    expected_txid: tx.id,
    fee_sats: fee,
    output_sats: output,
    fee_rate: rate,
    signing: { signer_address: set.bidder, inputs_to_sign: unspent.map((_, i) => i), sighash: d.family === 'p2tr' ? ('DEFAULT' as const) : ('ALL' as const) },
  };
}
