/**
 * Trade kernel: owns the composition of a buyer-funded transaction (checkout, bid funding, anchors and unit moves all build theirs here).
 *
 * The unsigned checkout transaction (pure: no I/O).
 *
 *   in 0        a buyer coin, signed ALL (a P2TR DEFAULT signature counts as ALL): it keys the
 *               Counterparty message and Core reads the sighash flag of input 0 only
 *   out 0       detached: the detach OP_RETURN (destination = delivery address; one message
 *               detaches every listed unit); attached: 330 sats to the delivery address (the
 *               move destination is the first non-OP_RETURN output, so one item only)
 *   in/out k    k = 1..n: the listings' SINGLE|ANYONECANPAY pairs, exactly as the sellers signed
 *   in n+1…     further buyer coins
 *   then        the platform-fee output (when the fee is not 0), buyer change (above dust)
 *
 * The message sits at output 0 on purpose (unlike the protocol's first sketch; docs/transactions.md): Counterparty Core
 * ignores a message that follows address outputs, and the pairs must keep output k = input k.
 * Version and locktime are the sellers' (their BIP-143/341 signatures commit to both).
 * Sizes are upper bounds (bitcoin/vsize.ts), so the fee never undershoots the rate.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { estimateSize, type InputSpend } from '../bitcoin/vsize.js';
import { detachOutputScript } from '../counterparty/attach-detach.js';
import type { Network } from '../bitcoin/networks.js';
import { BUYER_SEQUENCE, DELIVERY_UTXO_SATS, type DeliveryMode } from './rules.js';

export interface BuyerCoin {
  txid: string;
  vout: number;
  value_sats: number;
}

/** A seller's pair as stored (unsigned fields only: the signature is merged at completion). */
export interface SellerPair {
  txid: string;
  index: number;
  sequence: number;
  prevout: { script: Uint8Array; amount: bigint };
  output: { script: Uint8Array; amount: bigint };
  /** How the signed input will be spent, for the size estimate. */
  spend: InputSpend;
}

export interface CheckoutShape {
  version: number;
  lockTime: number;
  buyerScript: Uint8Array;
  /** P2WPKH or P2TR: how a buyer input is spent (taproot counted with an explicit hash type). */
  buyerSpend: InputSpend;
  buyerDust: number;
  /** A P2TR buyer's BIP-86 internal key, when given: copied onto every buyer input for the wallet. */
  buyerTapKey?: Uint8Array | null;
  /** The buyer inputs' sequence (default BUYER_SEQUENCE); the quote lowers it to make a new txid. */
  buyerSequence?: number;
  pairs: SellerPair[];
  delivery: { mode: DeliveryMode; address: string; script: Uint8Array };
  platformFee: { script: Uint8Array; sats: number };
  network: Network;
}

export interface CheckoutPlan {
  coins: BuyerCoin[];
  change_sats: number;
  network_fee_sats: number;
  vsize: number;
}

export type PlanResult = CheckoutPlan | { short: true; need_sats: number; have_sats: number };

export const feeFor = (vsize: number, feeRate: number) => Math.ceil(vsize * feeRate);

/** Output 0: the detach message (keyed by input 0's txid) or the 330-sat delivery output. */
function headOutput(s: CheckoutShape, input0Txid: string): { script: Uint8Array; amount: bigint } {
  if (s.delivery.mode === 'attached') return { script: s.delivery.script, amount: BigInt(DELIVERY_UTXO_SATS) };
  return { script: detachOutputScript({ input0Txid, destination: s.delivery.address, network: s.network }), amount: 0n };
}

/**
 * What the buyer's coins must cover before the network fee: prices, platform fee and the
 * attached-delivery output, less the asset UTXOs' own sats (the sellers signed those inputs
 * away with their units; they come back to the buyer in the change).
 */
export function payable(s: CheckoutShape): number {
  const price = s.pairs.reduce((t, p) => t + Number(p.output.amount), 0);
  const units = s.pairs.reduce((t, p) => t + Number(p.prevout.amount), 0);
  return price + s.platformFee.sats + (s.delivery.mode === 'attached' ? DELIVERY_UTXO_SATS : 0) - units;
}

function fixedOutputs(s: CheckoutShape, input0Txid: string): { script: Uint8Array; amount: bigint }[] {
  const outs = [headOutput(s, input0Txid), ...s.pairs.map((p) => p.output)];
  if (s.platformFee.sats > 0) outs.push({ script: s.platformFee.script, amount: BigInt(s.platformFee.sats) });
  return outs;
}

function vsizeOf(s: CheckoutShape, buyerInputs: number, withChange: boolean): number {
  // The detach payload does not depend on the key, only its length does: any txid sizes it.
  const outs = fixedOutputs(s, '00'.repeat(32)).map((o) => o.script);
  if (withChange) outs.push(s.buyerScript);
  const ins: InputSpend[] = [...Array<InputSpend>(buyerInputs).fill(s.buyerSpend), ...s.pairs.map((p) => p.spend)];
  return estimateSize(ins, outs).vsize;
}

/**
 * Picks buyer coins in the given order (largest first) until they pay the cart and the fee;
 * change below the buyer's dust limit goes to the fee.
 */
export function planCheckout(s: CheckoutShape, coins: readonly BuyerCoin[], feeRate: number): PlanResult {
  const pay = payable(s);
  const picked: BuyerCoin[] = [];
  let total = 0;
  let need = pay + feeFor(vsizeOf(s, 1, false), feeRate);
  for (const c of coins) {
    picked.push(c);
    total += c.value_sats;
    const vNoChange = vsizeOf(s, picked.length, false);
    const vChange = vsizeOf(s, picked.length, true);
    need = pay + feeFor(vNoChange, feeRate);
    const change = total - pay - feeFor(vChange, feeRate);
    if (change >= s.buyerDust) return { coins: picked, change_sats: change, network_fee_sats: feeFor(vChange, feeRate), vsize: vChange };
    if (total >= need) return { coins: picked, change_sats: 0, network_fee_sats: total - pay, vsize: vNoChange };
  }
  return { short: true, need_sats: need, have_sats: total };
}

/** The unsigned PSBT; its txid is final because every input is SegWit. */
export function buildCheckoutPsbt(s: CheckoutShape, plan: CheckoutPlan): { psbt_hex: string; expected_txid: string; inputs_to_sign: number[] } {
  const tx = new Transaction({ version: s.version, lockTime: s.lockTime, allowUnknownOutputs: true });
  const [first, ...more] = plan.coins;
  if (!first) throw new Error('checkout: no buyer coin');
  const buyerInput = (c: BuyerCoin) => ({
    txid: c.txid,
    index: c.vout,
    sequence: s.buyerSequence ?? BUYER_SEQUENCE,
    witnessUtxo: { script: s.buyerScript, amount: BigInt(c.value_sats) },
    ...(s.buyerTapKey ? { tapInternalKey: s.buyerTapKey } : {}),
  });
  tx.addInput(buyerInput(first));
  for (const p of s.pairs) {
    tx.addInput({
      txid: p.txid,
      index: p.index,
      sequence: p.sequence,
      witnessUtxo: { script: p.prevout.script, amount: p.prevout.amount },
      sighashType: 0x83,
      // No tapInternalKey on a seller input, even when the half has one: the buyer signs only
      // its own inputs (a BIP-341 signature commits to every prevout's script and amount, not to
      // internal keys), and every parse or update of a PSBT re-validates each x-only key it holds
      // (a square root in JavaScript, ~160 µs): ten P2TR sellers would cost a completion ~3 ms.
    });
  }
  for (const c of more) tx.addInput(buyerInput(c));
  for (const o of fixedOutputs(s, first.txid)) tx.addOutput(o);
  if (plan.change_sats > 0) tx.addOutput({ script: s.buyerScript, amount: BigInt(plan.change_sats) });
  const inputsToSign = [0, ...more.map((_, i) => s.pairs.length + 1 + i)];
  return { psbt_hex: hex.encode(tx.toPSBT()), expected_txid: tx.id, inputs_to_sign: inputsToSign };
}
