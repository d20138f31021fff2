/**
 * Addresses: decode to an output script and family, encode scripts back, and the spec's role
 * rules ("Address roles" in the marketplace spec):
 *   signing  — P2WPKH, P2TR (every signature is checked with a BIP-143 / BIP-341 sighash)
 *   delivery — any family Counterparty supports: P2PKH, P2SH, P2WPKH, P2WSH, P2TR (the detach
 *              destination is a UTF-8 string, never a signer)
 *   source   — P2PKH, P2WPKH, P2TR (the attach input 0 must carry a readable ALL flag)
 *
 * Decoding is scure's `Address` (base58check; BIP-173 bech32 for v0 and BIP-350 bech32m for v1).
 * An address of another network, an unknown witness version/length, or a P2TR key that is not a
 * valid x coordinate (such an output can never be spent) is `invalid`.
 */
import { Address, OutScript } from '@scure/btc-signer';
import { networkParams, type Network } from './networks.js';

export type AddressFamily = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr';
export type AddressRole = 'signing' | 'delivery' | 'source';

export const ROLE_FAMILIES: Readonly<Record<AddressRole, readonly AddressFamily[]>> = Object.freeze({
  signing: Object.freeze(['p2wpkh', 'p2tr'] as const),
  delivery: Object.freeze(['p2pkh', 'p2sh', 'p2wpkh', 'p2wsh', 'p2tr'] as const),
  source: Object.freeze(['p2pkh', 'p2wpkh', 'p2tr'] as const),
});

export type DecodedAddress = {
  ok: true;
  family: AddressFamily;
  /** The output script (scriptPubKey) paying this address. */
  script: Uint8Array;
  /** The 20/32-byte hash, or for P2TR the 32-byte x-only output key. */
  program: Uint8Array;
};

export type AddressDecodeResult = DecodedAddress | { ok: false; reason: 'invalid' };

type ScureOut =
  | { type: 'pkh' | 'sh' | 'wpkh' | 'wsh'; hash: Uint8Array }
  | { type: 'tr'; pubkey: Uint8Array };

const FAMILY: Record<ScureOut['type'], AddressFamily> = {
  pkh: 'p2pkh', sh: 'p2sh', wpkh: 'p2wpkh', wsh: 'p2wsh', tr: 'p2tr',
};

/**
 * Decoded addresses, by network and text. Decoding a P2TR address lifts its key onto the curve
 * twice (scure checks it in the address and again in the script), ≈ 0.1 ms in JavaScript, and a
 * checkout decodes every seller's address each time; the result depends on nothing else, so it
 * is kept (bounded, oldest dropped) and handed out as copies.
 */
const decoded = new Map<string, AddressDecodeResult>();
const DECODED_MAX = 4_096;

/** Decode `address` for `network`; never throws. */
export function decodeAddress(address: string, network: Network): AddressDecodeResult {
  if (typeof address !== 'string') return { ok: false, reason: 'invalid' };
  const key = `${network}:${address}`;
  let d = decoded.get(key);
  if (!d) {
    d = decodeOnce(address, network);
    if (decoded.size >= DECODED_MAX) decoded.delete(decoded.keys().next().value!);
    decoded.set(key, d);
  }
  return d.ok ? { ...d, script: d.script.slice(), program: d.program.slice() } : d;
}

function decodeOnce(address: string, network: Network): AddressDecodeResult {
  let out: { type: string; hash?: Uint8Array; pubkey?: Uint8Array };
  try {
    out = Address(networkParams(network)).decode(address) as typeof out;
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (!(out.type in FAMILY)) return { ok: false, reason: 'invalid' }; // e.g. P2A (BIP-433)
  const o = out as ScureOut;
  try {
    const script = OutScript.encode(o);
    return { ok: true, family: FAMILY[o.type], script, program: o.type === 'tr' ? o.pubkey : o.hash };
  } catch {
    return { ok: false, reason: 'invalid' }; // P2TR key off the curve
  }
}

/** The family of an output script, or undefined for anything else (OP_RETURN, bare multisig…). */
export function scriptFamily(script: Uint8Array): AddressFamily | undefined {
  try {
    const t = OutScript.decode(script).type;
    return t in FAMILY ? FAMILY[t as ScureOut['type']] : undefined;
  } catch {
    return undefined;
  }
}

/** Address of an output script on `network`, or undefined when the script has no address. */
export function scriptToAddress(script: Uint8Array, network: Network): string | undefined {
  try {
    const out = OutScript.decode(script);
    if (!(out.type in FAMILY)) return undefined;
    return Address(networkParams(network)).encode(out);
  } catch {
    return undefined;
  }
}

/** Output script paying `address`, or undefined if invalid on `network`. */
export function addressToScript(address: string, network: Network): Uint8Array | undefined {
  const d = decodeAddress(address, network);
  return d.ok ? d.script : undefined;
}

export type RoleCheck =
  | { ok: true; family: AddressFamily; script: Uint8Array }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'wrong_role'; family: AddressFamily };

/**
 * Can `address` play `role` on `network`? The HTTP layer maps `invalid` to 400 `invalid_request`
 * and `wrong_role` to 400 `unsupported_address_type`.
 */
export function checkAddressRole(address: string, role: AddressRole, network: Network): RoleCheck {
  const d = decodeAddress(address, network);
  if (!d.ok) return d;
  if (!ROLE_FAMILIES[role].includes(d.family)) return { ok: false, reason: 'wrong_role', family: d.family };
  return { ok: true, family: d.family, script: d.script };
}
