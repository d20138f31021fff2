/**
 * Counterparty message framing, after Core's `parser/messagetype.py` and counterparty-rs
 * `parse_vout`: an OP_RETURN output `OP_RETURN <ARC4(key, "CNTRPRTY" ‖ type ‖ payload)>`
 * where the key is the txid of input 0 (display hex, decoded) and the type is one byte when
 * 0 < id < 256, otherwise four bytes big-endian.
 */
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { arc4 } from './arc4.js';
import { OP_RETURN, opReturnScript, readScript } from './script-reader.js';

export const PREFIX = utf8ToBytes('CNTRPRTY');
export const ATTACH_ID = 101;
export const DETACH_ID = 102;
/** Core's standardness cap on a whole OP_RETURN scriptPubKey (`-datacarriersize`, 83 bytes). */
export const MAX_OP_RETURN_SCRIPT = 83;

/** Core's `transaction_type` names for the message ids it knows. */
export const MESSAGE_TYPE_NAMES: Readonly<Record<number, string>> = Object.freeze({
  0: 'send', 2: 'enhanced_send', 3: 'mpma', 4: 'sweep', 10: 'order', 11: 'btcpay', 12: 'dispenser',
  13: 'dispense', 20: 'issuance', 21: 'issuance', 22: 'issuance', 23: 'issuance', 30: 'broadcast',
  40: 'bet', 50: 'dividend', 70: 'cancel', 80: 'rps', 81: 'rpsresolve', 90: 'fairminter', 91: 'fairmint',
  100: 'utxo', 101: 'attach', 102: 'detach', 110: 'destroy',
});

/** The type field: one byte when 0 < id < 256 (`short_tx_type_id`), else 4 bytes big-endian. */
export function packMessageType(typeId: number): Uint8Array {
  if (!Number.isInteger(typeId) || typeId < 0 || typeId > 0xffffffff) throw new Error(`bad message type ${typeId}`);
  if (typeId > 0 && typeId < 256) return new Uint8Array([typeId]);
  return new Uint8Array([typeId >>> 24, (typeId >>> 16) & 0xff, (typeId >>> 8) & 0xff, typeId & 0xff]);
}

/** Core's `messagetype.unpack`: the type and the payload, or null when too short to hold one. */
export function unpackMessageType(data: Uint8Array): { typeId: number; payload: Uint8Array } | null {
  if (data.length > 1 && data[0]! > 0) return { typeId: data[0]!, payload: data.subarray(1) };
  if (data.length > 4) {
    const typeId = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0;
    return { typeId, payload: data.subarray(4) };
  }
  return null;
}

/** The ARC4 key: input 0's txid as displayed, hex-decoded. */
export function messageKey(input0Txid: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(input0Txid)) throw new Error(`message key: bad txid ${input0Txid}`);
  return hexToBytes(input0Txid.toLowerCase());
}

/** Message data as stored in Core's `transactions.data`: type ‖ payload (no prefix). */
export function packMessage(typeId: number, payload: Uint8Array): Uint8Array {
  const type = packMessageType(typeId);
  const out = new Uint8Array(type.length + payload.length);
  out.set(type, 0);
  out.set(payload, type.length);
  return out;
}

/**
 * The OP_RETURN output script carrying a message, for a transaction whose input 0 spends
 * `input0Txid`. Throws when it would exceed Core's 83-byte standard OP_RETURN.
 */
export function messageOutputScript(input0Txid: string, typeId: number, payload: Uint8Array): Uint8Array {
  const data = packMessage(typeId, payload);
  const plain = new Uint8Array(PREFIX.length + data.length);
  plain.set(PREFIX, 0);
  plain.set(data, PREFIX.length);
  const script = opReturnScript(arc4(messageKey(input0Txid), plain));
  if (script.length > MAX_OP_RETURN_SCRIPT) {
    throw new Error(`message output is ${script.length} bytes, above the ${MAX_OP_RETURN_SCRIPT}-byte standard OP_RETURN`);
  }
  return script;
}

export type OpReturnRead =
  | { kind: 'data'; data: Uint8Array }
  /** An OP_RETURN that is not a Counterparty message: Core's `parse_vout` errors on it. */
  | { kind: 'invalid' };

/** Reads an OP_RETURN output (first byte 0x6a) the way counterparty-rs `parse_vout` does. */
export function readMessageOutput(script: Uint8Array, input0Txid: string): OpReturnRead {
  const items = readScript(script);
  if (!items || items.length !== 2) return { kind: 'invalid' };
  const [first, second] = items as [(typeof items)[0], (typeof items)[0]];
  if (!('op' in first) || first.op !== OP_RETURN || !('push' in second)) return { kind: 'invalid' };
  const plain = arc4(messageKey(input0Txid), second.push);
  if (plain.length < PREFIX.length || !PREFIX.every((b, i) => plain[i] === b)) return { kind: 'invalid' };
  return { kind: 'data', data: plain.subarray(PREFIX.length) };
}

/** Decrypts and unframes a message output in one step; null when it carries no message. */
export function decodeMessageOutput(script: Uint8Array, input0Txid: string): { typeId: number; payload: Uint8Array } | null {
  const r = readMessageOutput(script, input0Txid);
  return r.kind === 'data' ? unpackMessageType(r.data) : null;
}
