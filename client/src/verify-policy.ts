/**
 * Verify before sign, collection offers (`funded_policy_offer_v1`).
 *
 * Placement: the parent the bidder signs spends only the bidder's own coins (and the market's
 * anchor, which it does not sign), pays the escrow exactly the highest price asked + 330 sats at
 * output 0, the anchor's value back at 1, and any change to the bidder, with the fee within the
 * quote and the caller's bound. The escrow is rebuilt here from the bidder's own key and the market
 * key (NUMS internal key; accept leaf `<bidder> CHECKSIGVERIFY <market> CHECKSIG`, refund leaf
 * `<csv> CSV DROP <bidder> CHECKSIG`, the CSV no longer than the bidder allows), so a server cannot
 * escrow the money where the bidder's key does not reach. Each pre-signed child template (signed
 * SINGLE|ANYONECANPAY: it commits to its input 0 and output 0 only) must spend exactly that escrow
 * through the accept leaf and pay the bidder's delivery address 330 + (max − that alternative's
 * own asked price): the unit and the refund of the difference.
 *
 * Accept: the seller signs input 1 only, its own unit; output 1 pays the seller the quoted
 * proceeds (net of every fee) plus the unit output's own sats, the proceeds no less than its minimum; the platform fee and the delivery are what the quote says.
 */
import { hex } from '@scure/base';
import { Script, TAPROOT_UNSPENDABLE_KEY, p2tr, type Transaction } from '@scure/btc-signer';
import { expect, params, outAmount, outpointOf, outScriptHex, prevAmount, prevScriptHex, readPsbt, sameOutpoint, scriptHex, unsignedTxid, type Network } from './psbt.js';
import { UNIT_SATS } from './verify-attach.js';
import type { Outpoint, Routes } from './generated/api.js';

type Preflight = Routes['POST /v1/policy-offers/preflight']['response']['result'];
type AcceptQuote = Routes['POST /v1/policy-accepts/preflight']['response']['result'];

export interface PolicyIntent {
  bidder: string;
  /** The bidder's x-only public key (hex), the one sent as bidder_pubkey. */
  bidderPubkey: string;
  delivery_address: string;
  /** The price asked for each alternative, in the order sent. */
  prices: number[];
  /** The market signer's key when the caller pins it (default: the one the escrow names). */
  marketPubkey?: string;
  /** The longest refund delay the bidder accepts (default 1008 blocks, about a week). */
  maxRefundCsvBlocks?: number;
  maxFeeSats?: number;
  network?: Network;
}

export function verifyPolicyPreflight(pf: Preflight, intent: PolicyIntent): Transaction {
  const own = scriptHex(intent.bidder, intent.network);
  const bidderKey = hex.decode(intent.bidderPubkey);
  const market = intent.marketPubkey ?? pf.escrow.market_key.pubkey;
  expect(pf.escrow.market_key.pubkey === market, 'the escrow names another market key than the one you pinned');
  const csv = pf.escrow.refund_csv_blocks;
  expect(csv >= 1 && csv <= (intent.maxRefundCsvBlocks ?? 1008), `the refund waits ${csv} blocks, longer than you allow`);
  const accept = Script.encode([bidderKey, 'CHECKSIGVERIFY', hex.decode(market), 'CHECKSIG']);
  const refund = Script.encode([csv, 'CHECKSEQUENCEVERIFY', 'DROP', bidderKey, 'CHECKSIG']);
  const escrowScript = hex.encode(p2tr(TAPROOT_UNSPENDABLE_KEY, [{ script: accept }, { script: refund }], params(intent.network), true).script);
  const max = Math.max(...intent.prices);
  const escrowValue = BigInt(max) + UNIT_SATS;

  const parent = readPsbt(pf.parent.psbt_hex);
  const funding = pf.funding_inputs.length;
  expect(pf.parent.signing.inputs_to_sign.length === funding && pf.parent.signing.inputs_to_sign.every((i, k) => i === k), 'you sign exactly your funding inputs');
  expect(parent.inputsLength === funding + 1 && sameOutpoint(outpointOf(parent, funding), pf.anchor), 'the parent spends your funding and one anchor, nothing else');
  let spent = 0n;
  for (let i = 0; i < funding; i++) {
    expect(prevScriptHex(parent, i) === own, `parent input ${i} does not spend your own coin`);
    spent += prevAmount(parent, i);
  }
  expect(outScriptHex(parent, 0) === escrowScript && outAmount(parent, 0) === escrowValue, `output 0 is not your escrow of ${escrowValue} sats`);
  expect(parent.outputsLength >= 2 && parent.outputsLength <= 3 && outAmount(parent, 1) === BigInt(pf.anchor.value_sats) && prevAmount(parent, funding) === BigInt(pf.anchor.value_sats), 'output 1 is not the anchor\'s value back');
  const change = parent.outputsLength === 3 ? (expect(outScriptHex(parent, 2) === own, 'parent output 2 (change) must pay you'), outAmount(parent, 2)) : 0n;
  const fee = spent - escrowValue - change;
  const bound = BigInt(Math.min(pf.parent.fee_sats, intent.maxFeeSats ?? Number.MAX_SAFE_INTEGER));
  expect(fee >= 0n && fee <= bound, `the parent would cost you ${fee} sats beyond the escrow, more than ${bound}`);
  const txid = unsignedTxid(parent);
  expect(txid === pf.parent.expected_txid, 'the parent txid is not the quote\'s expected_txid');

  expect(pf.alternatives.length === intent.prices.length && pf.alternatives.every((a, k) => a.index === k), 'the alternatives are not the targets you asked for');
  const delivery = scriptHex(intent.delivery_address, intent.network);
  const acceptLeaf = hex.encode(accept);
  for (const a of pf.alternatives) {
    const price = intent.prices[a.index]!;
    expect(a.price_sats === price, `alternative ${a.index} prices ${a.price_sats}, you asked ${price}`);
    const child = readPsbt(a.child_template.psbt_hex);
    expect(child.inputsLength === 1 && sameOutpoint(outpointOf(child, 0), { txid, vout: 0 }) && prevScriptHex(child, 0) === escrowScript && prevAmount(child, 0) === escrowValue, `alternative ${a.index} does not spend your escrow`);
    const leaves = child.getInput(0).tapLeafScript ?? [];
    expect(leaves.length === 1 && hex.encode(leaves[0]![1].subarray(0, -1)) === acceptLeaf, `alternative ${a.index} is not signed over the accept leaf`);
    expect(child.outputsLength === 1 && outScriptHex(child, 0) === delivery && outAmount(child, 0) === escrowValue - BigInt(price), `alternative ${a.index} does not deliver to you with ${escrowValue - BigInt(price)} sats`);
  }
  return parent;
}

export interface PolicyAcceptIntent {
  seller: string;
  outpoint: Outpoint;
  parent_txid: string;
  minNetSats?: number;
  network?: Network;
}

export function verifyPolicyAccept(q: AcceptQuote, intent: PolicyAcceptIntent): Transaction {
  const own = scriptHex(intent.seller, intent.network);
  const child = readPsbt(q.psbt_hex);
  expect(q.signing.inputs_to_sign.length === 1 && q.signing.inputs_to_sign[0] === 1, 'a seller signs input 1 only');
  expect(child.inputsLength === 2 && sameOutpoint(outpointOf(child, 0), { txid: intent.parent_txid, vout: 0 }), 'input 0 is not the offer\'s escrow');
  expect(sameOutpoint(outpointOf(child, 1), intent.outpoint) && sameOutpoint(q.asset_outpoint, intent.outpoint) && prevScriptHex(child, 1) === own, 'input 1 is not your unit');
  expect(outScriptHex(child, 0) === scriptHex(q.delivery.address, intent.network) && outAmount(child, 0) === BigInt(q.delivery.value_sats), 'output 0 is not the quoted delivery');
  // The quoted proceeds are net of every fee; the unit output's own sats come back on top.
  expect(outScriptHex(child, 1) === own && outAmount(child, 1) === BigInt(q.seller_proceeds_sats) + prevAmount(child, 1), 'output 1 does not pay you the quoted proceeds');
  expect(child.outputsLength === (q.platform_fee_sats > 0 ? 3 : 2) && (q.platform_fee_sats === 0 || outAmount(child, 2) === BigInt(q.platform_fee_sats)), 'the platform fee is not the quoted one');
  expect(unsignedTxid(child) === q.expected_txid, 'the child txid is not the quote\'s expected_txid');
  expect(intent.minNetSats === undefined || q.seller_proceeds_sats >= intent.minNetSats, `you would take home ${q.seller_proceeds_sats} sats, less than your minimum ${intent.minNetSats}`);
  return child;
}
