/**
 * The small PSBT reading every verify-before-sign check shares: parse without trusting, the output
 * script of an address on the intended network, an output's script as hex, the Counterparty message
 * an OP_RETURN carries (keyed by input 0's txid).
 */
import { hex } from '@scure/base';
import { NETWORK, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { decodeAddress } from './network.js';
import { decodeMessage } from './counterparty.js';
import { templateMismatch } from './errors.js';

export type Network = 'mainnet' | 'testnet' | 'regtest';

export function params(n: Network | undefined) {
  if (n === 'regtest') return { ...TEST_NETWORK, bech32: 'bcrt' };
  return n === 'testnet' ? TEST_NETWORK : NETWORK;
}

export function readPsbt(psbtHex: string | null | undefined): Transaction {
  if (!psbtHex) throw templateMismatch('no PSBT to sign');
  try {
    return Transaction.fromPSBT(hex.decode(psbtHex), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
  } catch (e) {
    throw templateMismatch(`the PSBT does not parse (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** The output script of `address` on `network`, hex (`network_mismatch` naming `field` for another network's address). */
export function scriptHex(address: string, network: Network | undefined, field = 'address'): string {
  return hex.encode(decodeAddress(address, network ?? 'mainnet', field));
}

export const outScriptHex = (tx: Transaction, i: number): string => {
  const s = tx.getOutput(i).script;
  return s ? hex.encode(s) : '';
};
export const outAmount = (tx: Transaction, i: number): bigint => tx.getOutput(i).amount ?? 0n;
export const prevScriptHex = (tx: Transaction, i: number): string => {
  const w = tx.getInput(i).witnessUtxo;
  return w ? hex.encode(w.script) : '';
};
export const prevAmount = (tx: Transaction, i: number): bigint => tx.getInput(i).witnessUtxo?.amount ?? 0n;
export const outpointOf = (tx: Transaction, i: number) => {
  const input = tx.getInput(i);
  return { txid: input.txid ? hex.encode(input.txid) : '', vout: input.index ?? -1 };
};
export const sameOutpoint = (a: { txid: string; vout: number }, b: { txid: string; vout: number }) => a.txid === b.txid && a.vout === b.vout;

export const sumInputs = (tx: Transaction) => Array.from({ length: tx.inputsLength }, (_, i) => prevAmount(tx, i)).reduce((a, b) => a + b, 0n);
export const sumOutputs = (tx: Transaction) => Array.from({ length: tx.outputsLength }, (_, i) => outAmount(tx, i)).reduce((a, b) => a + b, 0n);
/** `toSign` is every input, each once, in order. */
export const allInputs = (tx: Transaction, toSign: number[]) => toSign.length === tx.inputsLength && toSign.every((i, k) => i === k);

/** The Counterparty message of output `i` (type and UTF-8 payload), keyed by input 0's txid; null when none. */
export function messageAt(tx: Transaction, i: number): { type: number; text: string } | null {
  const s = tx.getOutput(i).script;
  const key = tx.getInput(0).txid;
  if (!s || !key || s[0] !== 0x6a) return null;
  const m = decodeMessage(s, key);
  return m ? { type: m.type, text: new TextDecoder().decode(m.payload) } : null;
}

/** The txid the PSBT will have once signed (every input segwit, so signatures do not change it). */
export const unsignedTxid = (tx: Transaction): string => tx.id;

/** Finalizes a signed PSBT: the raw transaction (hex) and its txid, for a wallet to broadcast. */
export function finalizeSigned(psbtHex: string): { tx_hex: string; txid: string } {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), { allowUnknownOutputs: true });
  tx.finalize();
  return { tx_hex: hex.encode(tx.extract()), txid: tx.id };
}

export function expect(ok: boolean, what: string): asserts ok {
  if (!ok) throw templateMismatch(what);
}

export const ATTACH_ID = 101;
export const DETACH_ID = 102;
