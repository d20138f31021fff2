/**
 * Verify before sign, the bid side. Each check re-derives from what the caller asked for what
 * the PSBT must do and refuses any difference with `unsafe_psbt` before the wallet sees it:
 * - the funding of bids: only the bidder's own coins in; each named slot an output paying the
 *   bidder's own address exactly the slot value; anything else change to the bidder; the fee
 *   within the quoted network fee and the caller's bound;
 * - an exact authorization (the bidder signs input 0 ALL, committing to everything): input 0 the
 *   offer's own slot, input 1 exactly the unit asked for, output 0 delivering to the bidder's
 *   receive address (the detach decrypted with input 0's txid, or 330 sats attached), the price
 *   the offer's, the seller's proceeds, platform fee and network fee the quote's and adding up;
 * - a seller's accept (input 1 ALL, and the CPFP child when asked): input 1 the seller's own unit,
 *   output 1 paying the seller the quoted proceeds, no less than the seller's minimum net once the
 *   child's fee is taken, the child spending exactly the parent's output 1 back to the seller.
 */
import type { Transaction } from '@scure/btc-signer';
import { allInputs, DETACH_ID, expect, messageAt, outAmount, outpointOf, outScriptHex, prevAmount, prevScriptHex, readPsbt, sameOutpoint, scriptHex, sumInputs, sumOutputs, unsignedTxid, type Network } from './psbt.js';
import { UNIT_SATS } from './verify-attach.js';
import type { Outpoint, Routes } from './generated/api.js';

type FundingQuote = Routes['POST /v1/offer-funding']['response']['result'];
type Authorization = Routes['POST /v1/offers/{id}/exact-authorizations']['response']['result'][number];
type AcceptQuote = Routes['POST /v1/exact-offer-authorizations/{id}/accept-preflight']['response']['result'];


export const slotValue = (price: number, mode: 'detached' | 'attached') => BigInt(price) + (mode === 'attached' ? UNIT_SATS : 0n);

export interface FundingIntent {
  bidder: string;
  price_sats: number;
  slots: number;
  delivery_mode: 'detached' | 'attached';
  maxFeeSats?: number;
  network?: Network;
}

export function verifyFunding(f: FundingQuote, intent: FundingIntent): Transaction {
  const own = scriptHex(intent.bidder, intent.network);
  const tx = readPsbt(f.psbt_hex);
  expect(allInputs(tx, f.inputs_to_sign), 'every funding input is yours to sign, once');
  for (let i = 0; i < tx.inputsLength; i++) expect(prevScriptHex(tx, i) === own, `funding input ${i} does not spend your own coin`);
  const value = slotValue(intent.price_sats, intent.delivery_mode);
  const txid = unsignedTxid(tx);
  expect(f.expected_txid === txid, 'the funding txid is not the quote\'s expected_txid');
  expect(f.bids.length === intent.slots, `asked for ${intent.slots} slots, the quote names ${f.bids.length}`);
  const slotVouts = new Set(f.bids.map((b) => (expect(b.txid === txid, 'a bid names another transaction'), b.vout)));
  expect(slotVouts.size === intent.slots, 'a slot is named twice');
  for (let o = 0; o < tx.outputsLength; o++) {
    expect(outScriptHex(tx, o) === own, `funding output ${o} does not pay you`);
    if (slotVouts.has(o)) expect(outAmount(tx, o) === value, `slot ${o} holds ${outAmount(tx, o)} sats, not ${value}`);
  }
  expect(tx.outputsLength <= intent.slots + 1, 'the funding has outputs beyond the slots and one change');
  const fee = sumInputs(tx) - sumOutputs(tx);
  const bound = BigInt(Math.min(f.network_fee_sats, intent.maxFeeSats ?? Number.MAX_SAFE_INTEGER));
  expect(fee <= bound, `the funding would cost ${fee} sats in fee, more than ${bound}`);
  return tx;
}

export interface AuthorizationIntent {
  bidder: string;
  /** The offer's slot and price, as the placement returned them. */
  slot: Outpoint;
  price_sats: number;
  delivery: { mode: 'detached' | 'attached'; address: string };
  /** The unit the bidder asked for. */
  outpoint: Outpoint;
  maxFeeSats?: number;
  network?: Network;
}

export function verifyAuthorization(a: Authorization, intent: AuthorizationIntent): Transaction {
  const tx = readPsbt(a.psbt_hex);
  expect(a.inputs_to_sign.length === 1 && a.inputs_to_sign[0] === 0, 'a bidder signs input 0 only');
  expect(tx.inputsLength === 2 && tx.outputsLength === 3, 'an exact-offer parent has two inputs and three outputs');
  expect(sameOutpoint(outpointOf(tx, 0), intent.slot), 'input 0 is not your offer\'s slot');
  expect(prevScriptHex(tx, 0) === scriptHex(intent.bidder, intent.network) && prevAmount(tx, 0) === slotValue(intent.price_sats, intent.delivery.mode), 'input 0 is not your slot at its value');
  expect(sameOutpoint(outpointOf(tx, 1), intent.outpoint) && sameOutpoint(a.target_outpoint, intent.outpoint), 'input 1 is not the unit you asked for');
  expect(a.price_sats === intent.price_sats, `the authorization prices ${a.price_sats}, your offer ${intent.price_sats}`);
  if (intent.delivery.mode === 'detached') {
    const m = messageAt(tx, 0);
    expect(m?.type === DETACH_ID && m.text === intent.delivery.address, 'output 0 does not detach the unit to your receive address');
  } else {
    expect(outScriptHex(tx, 0) === scriptHex(intent.delivery.address, intent.network) && outAmount(tx, 0) === UNIT_SATS, 'output 0 does not deliver the unit to your receive address');
  }
  expect(outScriptHex(tx, 1) === scriptHex(a.seller, intent.network) && outAmount(tx, 1) === BigInt(a.seller_proceeds_sats), 'output 1 does not pay the seller the quoted proceeds');
  expect(outAmount(tx, 2) === BigInt(a.platform_fee_sats), 'output 2 is not the quoted platform fee');
  const fee = sumInputs(tx) - sumOutputs(tx);
  expect(fee === BigInt(a.prefunded_fee_sats), `the parent pays ${fee} sats in fee, the quote says ${a.prefunded_fee_sats}`);
  expect(intent.maxFeeSats === undefined || fee <= BigInt(intent.maxFeeSats), `the parent's fee ${fee} is above your bound`);
  return tx;
}

export interface AcceptIntent {
  seller: string;
  /** The unit being sold, and the price the inbox showed. */
  outpoint: Outpoint;
  price_sats: number;
  /** The least the seller will take home once every fee is paid. */
  minNetSats?: number;
  network?: Network;
}

export function verifyAccept(q: AcceptQuote, intent: AcceptIntent): { parent: Transaction; child?: Transaction } {
  const own = scriptHex(intent.seller, intent.network);
  const parent = readPsbt(q.psbt_hex);
  expect(q.inputs_to_sign.length === 1 && q.inputs_to_sign[0] === 1, 'a seller signs input 1 only');
  expect(parent.inputsLength === 2 && parent.outputsLength === 3, 'an exact-offer parent has two inputs and three outputs');
  expect(sameOutpoint(outpointOf(parent, 1), intent.outpoint) && prevScriptHex(parent, 1) === own, 'input 1 is not your unit');
  expect(q.price_sats === intent.price_sats, `the accept prices ${q.price_sats}, the offer ${intent.price_sats}`);
  expect(outScriptHex(parent, 1) === own && outAmount(parent, 1) === BigInt(q.seller_proceeds_sats + (q.cpfp?.child_fee_sats ?? 0)), 'output 1 does not pay you the quoted proceeds');
  expect(outAmount(parent, 2) === BigInt(q.platform_fee_sats), 'output 2 is not the quoted platform fee');
  const txid = unsignedTxid(parent);
  expect(txid === q.expected_txid, 'the parent txid is not the quote\'s expected_txid');
  let net = outAmount(parent, 1);
  let child: Transaction | undefined;
  expect(q.requires_cpfp === !!q.cpfp, 'the quote is unclear about its child');
  if (q.cpfp) {
    child = readPsbt(q.cpfp.psbt_hex);
    expect(q.cpfp.inputs_to_sign.length === 1 && q.cpfp.inputs_to_sign[0] === 0, 'the child signs input 0 only');
    expect(child.inputsLength === 1 && sameOutpoint(outpointOf(child, 0), { txid, vout: 1 }) && prevScriptHex(child, 0) === own && prevAmount(child, 0) === outAmount(parent, 1), 'the child does not spend your proceeds output');
    expect(child.outputsLength === 1 && outScriptHex(child, 0) === own, 'the child does not pay you back');
    const childFee = prevAmount(child, 0) - outAmount(child, 0);
    expect(childFee === BigInt(q.cpfp.child_fee_sats), `the child pays ${childFee} sats in fee, the quote says ${q.cpfp.child_fee_sats}`);
    net = outAmount(child, 0);
  }
  expect(net === BigInt(q.seller_proceeds_sats), `you would take home ${net} sats, the quote says ${q.seller_proceeds_sats}`);
  expect(intent.minNetSats === undefined || net >= BigInt(intent.minNetSats), `you would take home ${net} sats, less than your minimum ${intent.minNetSats}`);
  return { parent, ...(child ? { child } : {}) };
}
