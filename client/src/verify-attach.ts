/**
 * Verify before sign, attach-and-list: the attach PSBT the seller signs ALL must spend only the
 * seller's own coins, create the 330-sat unit output at 0 to the seller, carry at 1 the attach
 * message of exactly the asset and quantity asked (destination vout 0, decrypted with input 0's
 * txid), send anything else back to the seller as change, and cost no more than the quoted network
 * fee and the caller's bound. The listing half is then checked over the attach's own output 0.
 * A co-signed draft puts the unit on the co-signed output instead (verify-cosigned.ts).
 */
import { templateMismatch } from './errors.js';
import { ATTACH_ID, expect, messageAt, outAmount, outScriptHex, prevAmount, prevScriptHex, readPsbt, scriptHex, unsignedTxid, type Network } from './psbt.js';
import { verifyListingPsbt } from './verify.js';
import type { ListingDraft } from './generated/api.js';
import { checkCosignedOutput, checkLeafHalf, type RebuiltCosigned } from './verify-cosigned.js';

export interface AttachIntent {
  seller: string;
  asset: string;
  quantity_raw: string;
  price_sats: number;
  /** The most the attach may cost in network fee (default: the draft's quoted network fee). */
  maxFeeSats?: number;
  network?: Network;
  /** A co-signed draft: the output rebuilt from the seller's key and the market key. */
  cosigned?: RebuiltCosigned;
}

export const UNIT_SATS = 330n;

export function verifyAttachDraft(d: ListingDraft, intent: AttachIntent): void {
  if (!d.attach || !d.listing) throw templateMismatch('the draft carries no attach and listing templates');
  const txid = verifyAttachPsbt(d, intent);
  expect(d.listing.price_sats === intent.price_sats, `the listing template asks ${d.listing.price_sats}, not ${intent.price_sats}`);
  const half = verifyListingPsbt(d.listing.psbt_hex, d.listing.inputs_to_sign, { seller: intent.seller, unit: { txid, vout: 0 }, price_sats: intent.price_sats, ...(intent.network ? { network: intent.network } : {}), ...(intent.cosigned ? { unitScriptHex: intent.cosigned.scriptHex } : {}) });
  if (intent.cosigned) checkLeafHalf(half, intent.cosigned);
}

/** The attach alone (an attach template prepares a unit, no listing): checked as above; returns its txid. */
export function verifyAttachPsbt(d: ListingDraft, intent: Omit<AttachIntent, 'price_sats'>): string {
  if (!d.attach) throw templateMismatch('the draft carries no attach template');
  const own = scriptHex(intent.seller, intent.network);
  const tx = readPsbt(d.attach.psbt_hex);
  expect(d.attach.signers.length === 1 && d.attach.signers[0]!.address === intent.seller, 'the attach must be signed by your address alone');
  const signer = d.attach.signers[0]!;
  expect(signer.sighash === 'ALL', `an attach is signed ALL, not ${signer.sighash}`);
  expect(signer.inputs_to_sign.length === tx.inputsLength && signer.inputs_to_sign.every((i, k) => i === k), 'every attach input is yours to sign, once');
  let spent = 0n;
  for (let i = 0; i < tx.inputsLength; i++) {
    expect(prevScriptHex(tx, i) === own, `attach input ${i} does not spend your own coin`);
    spent += prevAmount(tx, i);
  }
  expect(tx.outputsLength >= 2 && tx.outputsLength <= 3, `an attach has 2 or 3 outputs, this one ${tx.outputsLength}`);
  if (intent.cosigned) checkCosignedOutput(d.cosigned_output, intent.cosigned);
  const home = intent.cosigned ? intent.cosigned.scriptHex : own;
  expect(outScriptHex(tx, 0) === home && outAmount(tx, 0) === UNIT_SATS, `attach output 0 must be the 330-sat unit output to ${intent.cosigned ? 'your co-signed output' : 'you'}`);
  const m = messageAt(tx, 1);
  expect(m?.type === ATTACH_ID && m.text === `${intent.asset}|${intent.quantity_raw}|0`, `attach output 1 must attach exactly ${intent.quantity_raw} ${intent.asset} to output 0`);
  expect(outAmount(tx, 1) === 0n, 'the attach message output carries no sats');
  let back = UNIT_SATS;
  if (tx.outputsLength === 3) {
    expect(outScriptHex(tx, 2) === own, 'attach output 2 (change) must pay you');
    back += outAmount(tx, 2);
  }
  const fee = spent - back;
  const bound = BigInt(Math.min(d.fees.network.amount_sats, intent.maxFeeSats ?? Number.MAX_SAFE_INTEGER));
  expect(fee <= bound, `the attach would cost ${fee} sats in fee, more than ${bound}`);
  const txid = unsignedTxid(tx);
  expect(txid === d.expected_txid, 'the attach txid is not the draft\'s expected_txid');
  return txid;
}
