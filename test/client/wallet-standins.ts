/**
 * Stand-ins for the browser wallets, each implementing the API its wallet documents over a real
 * key (scure signs; nothing is mocked below the wallet's own surface), strict where the wallet is:
 * - sats-connect (Xverse, Magic Eden): `request(method, params)` → `{status, result}`;
 *   `getAddresses` ({purposes}) → `{addresses: [{address, publicKey, purpose, addressType}]}`;
 *   `signPsbt` ({psbt: base64, signInputs: {address: [index]}, broadcast}) → `{psbt}` signed with
 *   each input's own sighash type; `signMessage` ({address, message, protocol}) → `{signature}`.
 * - Unisat: `requestAccounts()`, `getPublicKey()`, `signPsbt(hex, {autoFinalized, toSignInputs:
 *   [{index, address|publicKey, sighashTypes}]})` → hex, finalized unless `autoFinalized: false`
 *   (as Unisat does), `signMessage(text, 'ecdsa' | 'bip322-simple')` → base64.
 * - Leather: `request(method, params)` → `{result}`; `getAddresses` → `{addresses: [{symbol, type,
 *   address, publicKey}]}`; `signPsbt` ({hex, signAtIndex, allowedSighash, network}) → `{hex}`;
 *   `signMessage` ({message, paymentType}) → `{signature}` (BIP-322).
 * A request naming an input the account does not own, or a sighash the PSBT input does not carry,
 * is refused as the wallet would (an error, nothing signed). `calls` counts signatures.
 */
import { base64, hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { signBip137, signBip322Simple } from '../../client/src/wallets/message.js';
import { PSBT_OPTS } from '../../client/src/wallets/sign-psbt.js';
import type { TestWallet } from '../helpers/wallets.js';

export interface Calls {
  sign: number;
}

/** Signs `indexes` as a wallet does: each input with the sighash the PSBT input carries (taproot DEFAULT when none), refusing any other. */
function signAs(w: TestWallet, psbt: Uint8Array, indexes: number[], allowed?: number[]): Transaction {
  const tx = Transaction.fromPSBT(psbt, PSBT_OPTS);
  for (const i of indexes) {
    const input = tx.getInput(i);
    const own = input.witnessUtxo && hex.encode(input.witnessUtxo.script) === hex.encode(w.script);
    const leaf = !!input.tapLeafScript?.length;
    if (!own && !leaf) throw new Error(`input ${i} is not this account's`);
    const type = input.sighashType ?? (w.family === 'p2tr' ? 0 : 1);
    if (allowed && !allowed.includes(type)) throw new Error(`sighash ${type} of input ${i} is not allowed`);
    if (!tx.signIdx(w.privateKey, i, [type as 0])) throw new Error(`could not sign input ${i}`);
  }
  return tx;
}

const message = (w: TestWallet, text: string, ecdsa: boolean) =>
  ecdsa || w.family === 'p2pkh' ? signBip137(w.privateKey, w.family === 'p2tr' ? 'p2wpkh' : (w.family as 'p2pkh' | 'p2wpkh'), text) : signBip322Simple(w.privateKey, w.family as 'p2tr' | 'p2wpkh', w.script, text);

export function satsConnectStandIn(w: TestWallet, calls: Calls) {
  return async (method: string, params?: any): Promise<any> => {
    try {
      if (method === 'getAddresses') {
        const addressType = w.family === 'p2tr' ? 'p2tr' : 'p2wpkh';
        return { status: 'success', result: { addresses: [{ address: w.address, publicKey: hex.encode(w.family === 'p2tr' ? w.xOnly : w.publicKey), purpose: w.family === 'p2tr' ? 'ordinals' : 'payment', addressType }] } };
      }
      if (method === 'signPsbt') {
        const indexes = params.signInputs[w.address];
        if (!indexes || Object.keys(params.signInputs).length !== 1) throw new Error('signInputs names another address');
        if (params.broadcast) throw new Error('this stand-in does not broadcast');
        calls.sign++;
        return { status: 'success', result: { psbt: base64.encode(signAs(w, base64.decode(params.psbt), indexes).toPSBT()) } };
      }
      if (method === 'signMessage') {
        if (params.address !== w.address) throw new Error('another address');
        return { status: 'success', result: { signature: message(w, params.message, params.protocol === 'ECDSA'), address: w.address, messageHash: '' } };
      }
      return { status: 'error', error: { code: -32601, message: `method ${method} not found` } };
    } catch (e) {
      return { status: 'error', error: { code: -32603, message: (e as Error).message } };
    }
  };
}

export function unisatStandIn(w: TestWallet, calls: Calls) {
  return {
    requestAccounts: async () => [w.address],
    getPublicKey: async () => hex.encode(w.publicKey),
    signPsbt: async (psbtHex: string, o: { autoFinalized?: boolean; toSignInputs?: Array<{ index: number; address?: string; publicKey?: string; sighashTypes?: number[] }> } = {}) => {
      const inputs = o.toSignInputs ?? [];
      if (inputs.some((i) => i.address !== undefined && i.address !== w.address)) throw new Error('toSignInputs names another address');
      let tx = Transaction.fromPSBT(hex.decode(psbtHex), PSBT_OPTS);
      for (const i of inputs) tx = signAs(w, tx.toPSBT(), [i.index], i.sighashTypes);
      calls.sign++;
      if (o.autoFinalized !== false) for (const i of inputs) tx.finalizeIdx(i.index);
      return hex.encode(tx.toPSBT());
    },
    signMessage: async (text: string, type: 'ecdsa' | 'bip322-simple' = 'ecdsa') => message(w, text, type === 'ecdsa'),
  };
}

export function leatherStandIn(w: TestWallet, calls: Calls) {
  return {
    request: async (method: string, params?: any): Promise<any> => {
      if (method === 'getAddresses') {
        return { result: { addresses: [{ symbol: 'BTC', type: w.family, address: w.address, publicKey: hex.encode(w.publicKey) }] } };
      }
      if (method === 'signPsbt') {
        const at: number[] = Array.isArray(params.signAtIndex) ? params.signAtIndex : [params.signAtIndex];
        calls.sign++;
        return { result: { hex: hex.encode(signAs(w, hex.decode(params.hex), at, params.allowedSighash).toPSBT()) } };
      }
      if (method === 'signMessage') return { result: { signature: message(w, params.message, false), address: w.address, message: params.message } };
      // Leather rejects the request promise with the JSON-RPC error.
      throw { error: { code: -32601, message: `method ${method} not found` } };
    },
  };
}
