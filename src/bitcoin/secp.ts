/**
 * The curve arithmetic behind every signature check, through the fastest implementation this
 * process can load:
 *
 * 1. `native`: libsecp256k1 compiled into the optional `secp256k1` addon for ECDSA (its v5 API
 *    has no BIP-340), and BIP-340 through the optional `bcrypto` addon's native build (bcoin's
 *    crypto library; about five times tiny-secp256k1's WebAssembly), or tiny-secp256k1 where
 *    that addon did not build;
 * 2. `tiny-secp256k1`: the same libsecp256k1 compiled to WebAssembly, ECDSA and BIP-340;
 * 3. `noble`: pure JavaScript, always there, the last fallback.
 *
 * Every backend answers the same two questions with the same verdicts (test/bitcoin/
 * secp-backends.test.ts runs every vector of the repo through each):
 * - `ecdsa(sig, msg, pubkey)`: a 64-byte compact (r‖s) signature over a 32-byte digest, **any S
 *   accepted** (the low-S policy is checked by the caller, `ecdsa.ts`, before this is asked);
 *   `pubkey` is a strict 33- or 65-byte encoding (the caller refuses hybrid keys first, which
 *   libsecp256k1 would parse and noble would not).
 * - `schnorr(sig, msg, xonly)`: BIP-340 over a 32-byte message.
 * Neither hashes the message again (noble is called with `prehash: false`), neither throws.
 *
 * The addon is optional (`optionalDependencies`, loaded with `require` inside a try): `npm ci`
 * never fails where it cannot build, and the process then runs on the WebAssembly build.
 */
import { createRequire } from 'node:module';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';

export type SecpBackendName = 'native' | 'tiny-secp256k1' | 'noble';

export interface SecpBackend {
  readonly name: SecpBackendName;
  ecdsa(sig: Uint8Array, msg: Uint8Array, pubkey: Uint8Array): boolean;
  schnorr(sig: Uint8Array, msg: Uint8Array, xonly: Uint8Array): boolean;
}

const require = createRequire(import.meta.url);

/** Runs `fn`, false on a throw: the libraries throw on keys or signatures they cannot parse. */
const safe = (fn: () => boolean): boolean => {
  try {
    return fn();
  } catch {
    return false;
  }
};

const noble: SecpBackend = {
  name: 'noble',
  ecdsa: (sig, msg, pubkey) => safe(() => secp256k1.verify(sig, msg, pubkey, { prehash: false, lowS: false, format: 'compact' })),
  schnorr: (sig, msg, xonly) => safe(() => schnorr.verify(sig, msg, xonly)),
};

interface TinySecp {
  verify(h: Uint8Array, q: Uint8Array, sig: Uint8Array, strict?: boolean): boolean;
  verifySchnorr(h: Uint8Array, q: Uint8Array, sig: Uint8Array): boolean;
}

interface NativeSecp {
  ecdsaVerify(sig: Uint8Array, msg: Uint8Array, pubkey: Uint8Array): boolean;
  signatureNormalize(sig: Uint8Array): Uint8Array;
}

function loadTiny(): SecpBackend | undefined {
  let tiny: TinySecp;
  try {
    tiny = require('tiny-secp256k1') as TinySecp;
  } catch {
    return undefined;
  }
  return {
    name: 'tiny-secp256k1',
    // strict = false: tiny normalises S itself, so a high-S signature verifies (the policy is ours).
    ecdsa: (sig, msg, pubkey) => safe(() => tiny.verify(msg, pubkey, sig, false)),
    schnorr: (sig, msg, xonly) => safe(() => tiny.verifySchnorr(msg, xonly, sig)),
  };
}

interface BcryptoSchnorr {
  /** 2 when the native binding is loaded (bcrypto falls back to JavaScript otherwise, which we never want). */
  native: number;
  verify(msg: Buffer, sig: Buffer, key: Buffer): boolean;
}

const asBuffer = (u: Uint8Array): Buffer => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

/** BIP-340 verification by bcrypto's native build, or undefined when it is not there. */
function loadBcryptoSchnorr(): SecpBackend['schnorr'] | undefined {
  let lib: BcryptoSchnorr;
  try {
    lib = require('bcrypto/lib/schnorr') as BcryptoSchnorr;
  } catch {
    return undefined;
  }
  if (lib.native !== 2) return undefined;
  // The contract is BIP-340 over a 32-byte message: bcrypto also takes other lengths (the later BIP-340 revision), so the sizes are fixed here.
  return (sig, msg, xonly) => sig.length === 64 && msg.length === 32 && xonly.length === 32 && safe(() => lib.verify(asBuffer(msg), asBuffer(sig), asBuffer(xonly)));
}

/** Where the native backend's BIP-340 checks run: bcrypto's native build, or tiny-secp256k1's WebAssembly. */
export let nativeSchnorrFrom: 'bcrypto' | 'tiny-secp256k1' | 'noble' = 'bcrypto';

function loadNative(schnorrFrom: SecpBackend): SecpBackend | undefined {
  let addon: NativeSecp;
  try {
    // `secp256k1/bindings` throws when the addon was not built; the package's main entry would
    // silently fall back to elliptic (slower than noble), which we never want.
    addon = require('secp256k1/bindings') as NativeSecp;
  } catch {
    return undefined;
  }
  const fast = loadBcryptoSchnorr();
  nativeSchnorrFrom = fast ? 'bcrypto' : (schnorrFrom.name as 'tiny-secp256k1' | 'noble');
  return {
    name: 'native',
    // libsecp256k1 refuses high S in verify; normalise a copy (the caller already applied policy).
    ecdsa: (sig, msg, pubkey) => safe(() => addon.ecdsaVerify(addon.signatureNormalize(Uint8Array.from(sig)), msg, pubkey)),
    schnorr: fast ?? schnorrFrom.schnorr,
  };
}

const tiny = loadTiny();
const native = loadNative(tiny ?? noble);

/** Every backend this process could load, fastest first (noble always last). */
export const secpBackends: readonly SecpBackend[] = [native, tiny, noble].filter((b): b is SecpBackend => b !== undefined);

/**
 * `SECP_BACKEND=native|tiny-secp256k1|noble` pins the path for a whole process (to run the
 * signature tests on each path, or to rule a backend out in production); unset: the fastest.
 */
const pinned = process.env.SECP_BACKEND;
let active: SecpBackend = (pinned && secpBackends.find((b) => b.name === pinned)) || secpBackends[0]!;
if (pinned && active.name !== pinned) throw new Error(`SECP_BACKEND=${pinned}: not available (have: ${secpBackends.map((b) => b.name).join(', ')})`);

/** The backend signature checks use now. */
export const secpBackend = (): SecpBackend => active;

/** Choose the backend (tests prove each path; the bench measures each). Throws if not loaded. */
export function useSecpBackend(name: SecpBackendName): SecpBackend {
  const b = secpBackends.find((x) => x.name === name);
  if (!b) throw new Error(`secp256k1 backend ${name} is not available here (have: ${secpBackends.map((x) => x.name).join(', ')})`);
  active = b;
  return b;
}
