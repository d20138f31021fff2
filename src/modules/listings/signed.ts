/**
 * Checking what a wallet sends back: the signed PSBT must be the stored template (only
 * signatures added: same version, locktime, outpoints, sequences and outputs; else 422
 * template_mismatch), and every expected input must carry a verified signature with the
 * expected sighash by the expected address (else 422 signature_invalid). A PSBT that does not
 * parse is 422 invalid_transaction.
 */
import { ApiError } from '../../http/errors.js';
import type { Network } from '../../bitcoin/networks.js';
import { parsePsbt, psbtPrevouts } from '../../bitcoin/psbt.js';
import { compareToTemplate, extractFinalTransaction, verifyPsbt, type PsbtInputExpectation } from '../../bitcoin/psbt-verify.js';
import { buildListingPsbt } from './templates.js';
import { checkCosignedHalf } from './cosigned.js';
import type { CosignedOutput } from '../../counterparty/cosigned-listing.js';

function parsed(psbtHex: string, field: string) {
  const p = parsePsbt(psbtHex);
  if (!p.ok) throw new ApiError('invalid_transaction', `${field}: ${p.error}`, { field });
  return p.tx;
}

/**
 * Same transaction as the template, and the same prevouts (the amounts and scripts a segwit
 * signature commits to come from the PSBT: a wallet must not swap them).
 */
function matchTemplate(psbtHex: string, template: string, field: string): void {
  const signed = parsed(psbtHex, field);
  const c = compareToTemplate(psbtHex, template);
  if (!c.ok) throw new ApiError('template_mismatch', `${field}: ${c.error}`, { field });
  const mine = psbtPrevouts(signed).prevouts;
  const theirs = psbtPrevouts(parsed(template, 'template')).prevouts;
  mine.forEach((p, i) => {
    const t = theirs[i];
    if (!p || !t || p.amount !== t.amount || Buffer.compare(Buffer.from(p.script), Buffer.from(t.script)) !== 0) {
      throw new ApiError('template_mismatch', `${field}: input ${i} prevout differs from the template`, { field });
    }
  });
}

function verifySignatures(psbtHex: string, expected: PsbtInputExpectation[], field: string): void {
  const r = verifyPsbt(psbtHex, expected);
  if (!r.ok) throw new ApiError('signature_invalid', `${field}: ${r.error}`, { field });
}

/**
 * A signed attach: the template's transaction, every input signed ALL by its signer. Returns
 * the final network transaction (its txid differs from the unsigned one for a P2PKH source).
 */
export function verifySignedAttach(
  psbtHex: string,
  template: string,
  signers: { address: string; inputs_to_sign: number[] }[],
  network: Network,
  field: string,
): { txid: string; hex: string } {
  matchTemplate(psbtHex, template, field);
  const expected: PsbtInputExpectation[] = signers.flatMap((s) =>
    s.inputs_to_sign.map((index) => ({ index, sighash: 'ALL' as const, signer: { address: s.address, network } })),
  );
  verifySignatures(psbtHex, expected, field);
  const final = extractFinalTransaction(psbtHex);
  if (!final.ok) throw new ApiError('invalid_transaction', `${field}: ${final.error}`, { field });
  return { txid: final.txid, hex: final.hex };
}

/**
 * The stored half is what a checkout copies, prevout included, from input 0's `witnessUtxo`: a
 * half that proves its prevout only with `nonWitnessUtxo` verifies, yet no quote could use it.
 */
function requireWitnessUtxo(psbtHex: string, field: string): void {
  if (!parsed(psbtHex, field).getInput(0).witnessUtxo) {
    throw new ApiError('template_mismatch', `${field}: input 0 must carry the asset UTXO as witnessUtxo`, { field });
  }
}

/**
 * A signed listing half: the template, input 0 signed SINGLE|ANYONECANPAY by the seller (for a
 * co-signed listing, over the output's leaf by the seller key, and nothing else).
 */
export function verifySignedListing(psbtHex: string, template: string, seller: string, network: Network, field: string, cosigned: CosignedOutput | null = null): void {
  matchTemplate(psbtHex, template, field);
  requireWitnessUtxo(psbtHex, field);
  if (cosigned) checkCosignedHalf(psbtHex, cosigned, field);
  const signer = cosigned ? { pubkey: cosigned.internalKey } : { address: seller, network };
  verifySignatures(psbtHex, [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer }], field);
}

/**
 * A reprice: a listing half over the same outpoint paying the seller a new price. Any other
 * shape is template_mismatch; the new price is read from output 0. Version, locktime and
 * sequence must be the listing template's (as POST /v1/listings/batch reprice_preflight builds
 * it): the seller's signature commits to them and a checkout must copy them, so a non-final
 * locktime or a relative timelock would leave an ask on the book that no checkout can settle.
 */
export function verifyRepriceListing(
  psbtHex: string,
  at: { txid: string; vout: number; value_sats: number },
  sellerScript: Uint8Array,
  seller: string,
  network: Network,
  field: string,
  cosigned: CosignedOutput | null = null,
): { price_sats: number } {
  const tx = parsed(psbtHex, field);
  const mismatch = (why: string) => new ApiError('template_mismatch', `${field}: ${why}`, { field });
  if (tx.inputsLength !== 1 || tx.outputsLength !== 1) throw mismatch(`a listing has 1 input and 1 output, got ${tx.inputsLength} and ${tx.outputsLength}`);
  const input = tx.getInput(0);
  const op = `${input.txid ? Buffer.from(input.txid).toString('hex') : ''}:${input.index}`;
  if (op !== `${at.txid}:${at.vout}`) throw mismatch(`input 0 spends ${op}, not the listed ${at.txid}:${at.vout}`);
  requireWitnessUtxo(psbtHex, field);
  const prev = psbtPrevouts(tx).prevouts[0];
  if (!prev || prev.amount !== BigInt(at.value_sats) || Buffer.compare(Buffer.from(prev.script), Buffer.from(cosigned ? cosigned.script : sellerScript)) !== 0) {
    throw mismatch('input 0 prevout is not the listed asset UTXO');
  }
  const out = tx.getOutput(0);
  if (!out.script || Buffer.compare(Buffer.from(out.script), Buffer.from(sellerScript)) !== 0) throw mismatch('output 0 does not pay the seller');
  const price = Number(out.amount ?? 0n);
  const template = buildListingPsbt({ txid: at.txid, vout: at.vout, utxoValueSats: at.value_sats, sellerScript, priceSats: price, cosigned });
  const same = compareToTemplate(psbtHex, template);
  if (!same.ok) throw mismatch(same.error);
  if (cosigned) checkCosignedHalf(psbtHex, cosigned, field);
  verifySignatures(psbtHex, [{ index: 0, sighash: 'SINGLE|ANYONECANPAY', signer: cosigned ? { pubkey: cosigned.internalKey } : { address: seller, network } }], field);
  return { price_sats: price };
}
