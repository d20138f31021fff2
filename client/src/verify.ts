/**
 * Verify before sign. Before a checkout PSBT reaches the wallet, the client re-derives from what
 * the caller asked for (the buyer, the delivery, the listings and the most it will pay) what the
 * transaction must do, and refuses any difference without calling the signer
 * (`unsafe_psbt`). A compromised or buggy API cannot make the wallet sign a transaction
 * that pays someone else, delivers elsewhere, spends more, or carries an input it did not quote.
 *
 * Checked: every input to sign pays the buyer's own address (and input 0 is one of them, so the
 * Counterparty message is keyed by the buyer's coin); every other input is a quoted listing's
 * unit outpoint at its line's index, with its output paying that line's seller its price; the
 * delivery (detached: the OP_RETURN, decrypted with input 0's txid, names a detach to the
 * delivery address; attached: output 0 carries 330 sats to the delivery address); and what
 * leaves the buyer's wallet is at most `maxSpendSats`.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { decodeAddress } from './network.js';
import { templateMismatch } from './errors.js';
import { decodeMessage } from './counterparty.js';

export interface CheckoutIntent {
  buyer: string;
  delivery: { mode: 'detached' | 'attached'; address: string };
  /** The listings the caller chose, with the most it will pay for each. */
  lines: Array<{ listing_id: string; max_price_sats: number }>;
  /** The most that may leave the buyer's wallet (prices, fees, network fee, delivery). */
  maxSpendSats: number;
  network?: 'mainnet' | 'testnet' | 'regtest';
}

export interface CheckoutQuoteLike {
  psbt_hex: string | null;
  inputs_to_sign: number[];
  buyer_address: string;
  delivery: { mode: 'detached' | 'attached'; address: string };
  lines: Array<{ listing_id: string; seller: string; price_sats: number; utxo_txid: string; utxo_vout: number }>;
}

const DETACH_ID = 102;

export function verifyCheckoutPsbt(q: CheckoutQuoteLike, intent: CheckoutIntent): Transaction {
  if (!q.psbt_hex) throw templateMismatch('the quote carries no PSBT');
  const script = (address: string, field = 'delivery_address') => decodeAddress(address, intent.network ?? 'mainnet', field);
  if (q.buyer_address !== intent.buyer) throw templateMismatch(`the quote is for ${q.buyer_address}, not ${intent.buyer}`);
  if (q.delivery.mode !== intent.delivery.mode || q.delivery.address !== intent.delivery.address) throw templateMismatch('the quote delivers elsewhere than asked');
  const asked = new Map(intent.lines.map((l) => [l.listing_id, l.max_price_sats]));
  if (q.lines.length !== intent.lines.length || q.lines.some((l) => !asked.has(l.listing_id))) throw templateMismatch('the quote lines are not the listings asked for');
  for (const l of q.lines) if (l.price_sats > asked.get(l.listing_id)!) throw templateMismatch(`${l.listing_id} costs ${l.price_sats}, more than ${asked.get(l.listing_id)}`);

  const tx = Transaction.fromPSBT(hex.decode(q.psbt_hex), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
  const buyerScript = hex.encode(script(intent.buyer, 'address'));
  const toSign = new Set(q.inputs_to_sign);
  if (!toSign.has(0)) throw templateMismatch('input 0 (the message key) is not the buyer\'s');
  let fromBuyer = 0n;
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const prev = input.witnessUtxo;
    if (toSign.has(i)) {
      if (!prev || hex.encode(prev.script) !== buyerScript) throw templateMismatch(`input ${i} to sign does not spend the buyer's own coin`);
      fromBuyer += prev.amount;
      continue;
    }
    const line = q.lines[i - 1];
    if (!line || !input.txid || hex.encode(input.txid) !== line.utxo_txid || input.index !== line.utxo_vout) throw templateMismatch(`input ${i} is neither the buyer's nor a quoted listing's unit`);
    const out = tx.getOutput(i);
    if (!out.script || hex.encode(out.script) !== hex.encode(script(line.seller, 'lines.seller')) || out.amount !== BigInt(line.price_sats)) throw templateMismatch(`output ${i} does not pay ${line.listing_id}'s seller its price`);
  }
  let toBuyer = 0n;
  let delivered = false;
  for (let o = 0; o < tx.outputsLength; o++) {
    const out = tx.getOutput(o);
    if (!out.script) continue;
    if (hex.encode(out.script) === buyerScript) toBuyer += out.amount ?? 0n;
    if (intent.delivery.mode === 'detached' && out.script[0] === 0x6a) {
      const m = decodeMessage(out.script, tx.getInput(0).txid!);
      if (m && m.type === DETACH_ID) {
        if (new TextDecoder().decode(m.payload) !== intent.delivery.address) throw templateMismatch('the detach names another address than the delivery address');
        delivered = true;
      }
    }
  }
  if (intent.delivery.mode === 'attached') {
    const out0 = tx.getOutput(0);
    delivered = !!out0.script && hex.encode(out0.script) === hex.encode(script(intent.delivery.address)) && out0.amount === 330n;
    if (hex.encode(script(intent.delivery.address)) === buyerScript) toBuyer -= 330n;
  }
  if (!delivered) throw templateMismatch('the transaction does not deliver the units to the delivery address');
  const spend = fromBuyer - toBuyer;
  if (spend > BigInt(intent.maxSpendSats)) throw templateMismatch(`the buyer would spend ${spend} sats, more than ${intent.maxSpendSats}`);
  return tx;
}

export interface ListingIntent {
  seller: string;
  /** The attached unit being listed. */
  unit: { txid: string; vout: number };
  price_sats: number;
  network?: 'mainnet' | 'testnet' | 'regtest';
  /** The unit's output script when it is not the seller's own address (a co-signed output), hex. */
  unitScriptHex?: string;
}

/**
 * A listing half before the wallet signs it SINGLE|ANYONECANPAY: exactly one input (the unit the
 * seller chose, its own output) and output 0 paying the seller's own address exactly the price.
 * Signed over anything else, the half could sell the unit for less or to someone else's benefit.
 */
export function verifyListingPsbt(psbtHex: string, inputsToSign: number[], intent: ListingIntent): Transaction {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
  const own = hex.encode(decodeAddress(intent.seller, intent.network ?? 'mainnet', 'address'));
  if (inputsToSign.length !== 1 || inputsToSign[0] !== 0) throw templateMismatch('a listing signs input 0 only');
  if (tx.inputsLength !== 1) throw templateMismatch(`a listing half has one input, this one ${tx.inputsLength}`);
  const in0 = tx.getInput(0);
  if (!in0.txid || hex.encode(in0.txid) !== intent.unit.txid || in0.index !== intent.unit.vout) throw templateMismatch('input 0 is not the unit you chose');
  if (!in0.witnessUtxo || hex.encode(in0.witnessUtxo.script) !== (intent.unitScriptHex ?? own)) throw templateMismatch('input 0 is not your own output');
  const out0 = tx.outputsLength >= 1 ? tx.getOutput(0) : undefined;
  if (!out0?.script || hex.encode(out0.script) !== own || out0.amount !== BigInt(intent.price_sats)) throw templateMismatch(`output 0 must pay you exactly ${intent.price_sats} sats`);
  return tx;
}
