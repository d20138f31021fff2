/**
 * Attach (id 101) and detach (id 102) payloads and the OP_RETURN builders the market composes
 * with. Parsing follows Core's `messages/attach.py` and `messages/detach.py` `unpack`, including
 * their fallbacks: an attach payload that does not parse reads as `("", 0, None)` (then fails
 * validation), a detach payload that does not parse reads as "no destination".
 */
import { decodeAddress } from '../bitcoin/address.js';
import type { Network } from '../bitcoin/networks.js';
import { BTC, MAX_QUANTITY, isCanonicalAssetId } from './asset-names.js';
import { ATTACH_ID, DETACH_ID, messageOutputScript } from './message.js';

export interface AttachPayload {
  asset: string;
  quantity: bigint;
  /** null: Core attaches to the first non-OP_RETURN output. */
  destinationVout: bigint | null;
}

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Python's `int(str)` for the ASCII forms a payload can hold: surrounding whitespace, a sign,
 * digits with single underscores between them. Returns null where Python raises.
 */
export function parsePythonInt(text: string): bigint | null {
  const t = text.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '');
  if (!/^[+-]?[0-9]+(_[0-9]+)*$/.test(t)) return null;
  return BigInt(t.replace(/_/g, ''));
}

/** `ASSET|QUANTITY|DESTINATION_VOUT` as UTF-8; the vout is always written (Core writes "" for 0). */
export function encodeAttachPayload(p: { asset: string; quantity: bigint; destinationVout: number | null }): Uint8Array {
  if (p.asset === BTC || !isCanonicalAssetId(p.asset)) throw new Error(`attach: ${p.asset} is not an attachable asset name (use the A… id of a subasset)`);
  if (p.quantity <= 0n || p.quantity > MAX_QUANTITY) throw new Error(`attach: quantity ${p.quantity} out of range`);
  if (p.destinationVout !== null && (!Number.isInteger(p.destinationVout) || p.destinationVout < 0)) {
    throw new Error(`attach: bad destination vout ${p.destinationVout}`);
  }
  const vout = p.destinationVout === null ? '' : String(p.destinationVout);
  return utf8.encode(`${p.asset}|${p.quantity}|${vout}`);
}

/** Core's `attach.unpack`; any failure gives `{asset: "", quantity: 0n, destinationVout: null}`. */
export function decodeAttachPayload(payload: Uint8Array): AttachPayload {
  const fallback: AttachPayload = { asset: '', quantity: 0n, destinationVout: null };
  let text: string;
  try {
    text = strictUtf8.decode(payload);
  } catch {
    return fallback;
  }
  const parts = text.split('|');
  if (parts.length !== 3) return fallback;
  const [asset, qty, vout] = parts as [string, string, string];
  const quantity = parsePythonInt(qty);
  if (quantity === null) return fallback;
  let destinationVout: bigint | null = null;
  if (vout !== '') {
    destinationVout = parsePythonInt(vout);
    if (destinationVout === null) return fallback;
  }
  return { asset, quantity, destinationVout };
}

/** The destination address as UTF-8, or "0" for none (Core never sends an empty payload). */
export function encodeDetachPayload(destination: string | null): Uint8Array {
  if (destination === '') throw new Error('detach: empty destination (use null for none)');
  return utf8.encode(destination ?? '0');
}

/** Core's `detach.unpack`: null for "0" or undecodable bytes. */
export function decodeDetachPayload(payload: Uint8Array): string | null {
  if (payload.length === 1 && payload[0] === 0x30) return null;
  try {
    return strictUtf8.decode(payload);
  } catch {
    return null;
  }
}

/**
 * The attach OP_RETURN output script for a transaction whose input 0 spends `input0Txid`.
 * The market attaches to output 0 (`destinationVout: 0`), a 330-sat segwit output.
 */
export function attachOutputScript(p: { input0Txid: string; asset: string; quantity: bigint; destinationVout: number | null }): Uint8Array {
  return messageOutputScript(p.input0Txid, ATTACH_ID, encodeAttachPayload(p));
}

/**
 * The detach OP_RETURN output script. Every input holding attached balances is detached to
 * `destination` (any address family, P2PKH included: it is a string, never a script). When
 * `network` is given the address must be valid on it, because Core silently falls back to the
 * UTXO's owner for an invalid destination, which a buyer would not expect.
 */
export function detachOutputScript(p: { input0Txid: string; destination: string | null; network?: Network }): Uint8Array {
  if (p.destination !== null && p.network && !decodeAddress(p.destination, p.network).ok) {
    throw new Error(`detach: ${p.destination} is not a ${p.network} address`);
  }
  return messageOutputScript(p.input0Txid, DETACH_ID, encodeDetachPayload(p.destination));
}
