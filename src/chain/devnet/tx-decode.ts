/**
 * Raw transaction decoding for the devnet: scure parses (permissively, as a node must read
 * anything well-formed), and we keep the raw bytes, txid, wtxid and sizes Core computes.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../bitcoin/transaction.js';

export interface TxIn {
  txid: string;
  vout: number;
  sequence: number;
  scriptSig: Uint8Array;
  witness: Uint8Array[];
}

export interface TxOut {
  value: bigint;
  script: Uint8Array;
}

export interface DecodedTx {
  txid: string;
  wtxid: string;
  hex: string;
  bytes: Uint8Array;
  version: number;
  lockTime: number;
  inputs: TxIn[];
  outputs: TxOut[];
  /** Serialized size with witness. */
  size: number;
  weight: number;
  vsize: number;
  /** Size without witness (Core's `tx-size-small` measure). */
  baseSize: number;
  hasWitness: boolean;
  isCoinbase: boolean;
  /** The scure object, for signature verification. */
  tx: Transaction;
}

export const NULL_TXID = '00'.repeat(32);

export class TxDecodeError extends Error {}

/** Display hex of a double-SHA256 (Bitcoin's txid/wtxid/block hash convention). */
export function hash256Display(bytes: Uint8Array): string {
  return bytesToHex(sha256(sha256(bytes)).reverse());
}

export function decodeTx(raw: string | Uint8Array): DecodedTx {
  let bytes: Uint8Array;
  let tx: Transaction;
  try {
    if (typeof raw === 'string') {
      if (!/^([0-9a-fA-F]{2})+$/.test(raw)) throw new Error('not hex');
      bytes = hexToBytes(raw.toLowerCase());
    } else bytes = raw;
    tx = Transaction.fromRaw(bytes, READ_TX_OPTS);
  } catch (e) {
    throw new TxDecodeError(`TX decode failed (${(e as Error).message})`);
  }
  const inputs: TxIn[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const inp = tx.getInput(i);
    inputs.push({
      txid: bytesToHex(inp.txid!),
      vout: inp.index!,
      sequence: inp.sequence ?? 0xffffffff,
      scriptSig: inp.finalScriptSig ?? new Uint8Array(),
      witness: inp.finalScriptWitness ?? [],
    });
  }
  const outputs: TxOut[] = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const o = tx.getOutput(i);
    outputs.push({ value: o.amount!, script: o.script! });
  }
  const hasWitness = inputs.some((i) => i.witness.length > 0);
  const baseSize = tx.toBytes(true, false).length;
  const weight = baseSize * 3 + bytes.length;
  const first = inputs[0];
  return {
    txid: tx.id,
    wtxid: hash256Display(bytes),
    hex: bytesToHex(bytes),
    bytes,
    version: tx.version,
    lockTime: tx.lockTime,
    inputs,
    outputs,
    size: bytes.length,
    weight,
    vsize: Math.ceil(weight / 4),
    baseSize,
    hasWitness,
    isCoinbase: inputs.length === 1 && first!.txid === NULL_TXID && first!.vout === 0xffffffff,
    tx,
  };
}

export const outpointKey = (txid: string, vout: number): string => `${txid}:${vout}`;
