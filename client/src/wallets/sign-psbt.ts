/**
 * What every wallet must get right before it signs a market PSBT, in one place:
 * - the sighash the flow asks for, written into the input (`sighashType`) so that any signer (ours
 *   or a browser wallet's) signs with it: ALL for a buy or an attach, SINGLE|ANYONECANPAY for a
 *   listing half, DEFAULT (taproot's implicit ALL; ALL on ECDSA inputs) where the market asks it;
 * - the taproot internal key on the wallet's own key-path inputs (a P2TR address only shows the
 *   tweaked key, so the PSBT cannot carry it unless the wallet adds it);
 * - script-path inputs (a co-signed unit's leaf) left without a key path: signed over the leaf
 *   the PSBT offers;
 * - PSBTs parsed with `allowUnknownOutputs` (Counterparty's OP_RETURN) and unknown inputs allowed.
 */
import { hex } from '@scure/base';
import { SigHash, Transaction, type TxOpts } from '@scure/btc-signer';
import type { Sighash } from '../flow.js';
import type { AddressType } from './message.js';

export const PSBT_OPTS: TxOpts = { allowUnknownOutputs: true, allowUnknownInputs: true, allowUnknownVersion: true, disableScriptCheck: true, allowLegacyWitnessUtxo: true };

/** The sighash byte for a flow's `sighash` on an input of `type` (DEFAULT is 0 on taproot only). */
export function sighashByte(sighash: Sighash, type: AddressType): number {
  if (sighash === 'SINGLE|ANYONECANPAY') return SigHash.SINGLE_ANYONECANPAY;
  if (sighash === 'DEFAULT') return type === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL;
  return SigHash.ALL;
}

export interface OwnKey {
  type: AddressType;
  /** The wallet's output script (its address). */
  script: Uint8Array;
  /** 32-byte x-only key: the taproot internal key of a P2TR wallet. */
  xOnly: Uint8Array;
}

/** Is input `i` a script-path spend (a tapscript leaf offered, the prevout not the wallet's own key path)? */
export function isLeafInput(tx: Transaction, i: number, own: OwnKey): boolean {
  const input = tx.getInput(i);
  const prev = input.witnessUtxo?.script;
  return own.type === 'p2tr' && !!input.tapLeafScript?.length && !(prev && hex.encode(prev) === hex.encode(own.script));
}

/**
 * The PSBT (parsed) ready for a signer: each input to sign carries the sighash asked for and, if
 * it is the wallet's own taproot key path, its internal key.
 */
export function preparePsbt(psbtHex: string, inputs: number[], sighash: Sighash, own: OwnKey): Transaction {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), PSBT_OPTS);
  for (const i of inputs) {
    const byte = sighashByte(sighash, own.type);
    if (byte !== SigHash.DEFAULT) tx.updateInput(i, { sighashType: byte }, true);
    if (own.type === 'p2tr' && !isLeafInput(tx, i, own) && !tx.getInput(i).tapInternalKey) tx.updateInput(i, { tapInternalKey: own.xOnly }, true);
  }
  return tx;
}
