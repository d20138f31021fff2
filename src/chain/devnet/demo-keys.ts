/**
 * The demo wallets' keys: deterministic regtest keys, published on purpose so sandbox users can
 * sign as the demo sellers (never used on a real chain). Kept with the devnet, which is regtest
 * only, so its sandbox routes (POST /devnet/sign-message) and the demo seed (src/demo) share them.
 */
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { p2tr, p2wpkh, WIF } from '@scure/btc-signer';
import { networkParams } from '../../bitcoin/networks.js';

export const DEMO_LABELS = ['alice', 'bob', 'carol'] as const;
export type DemoLabel = (typeof DEMO_LABELS)[number];

export interface DemoKey {
  label: DemoLabel;
  address: string;
  /** Regtest only: published so sandbox users can sign as the demo sellers. */
  wif: string;
  family: 'p2wpkh' | 'p2tr';
  privateKey: Uint8Array;
  /** The output script paying `address`. */
  script: Uint8Array;
  /** The BIP-86 internal key of a P2TR wallet. */
  xOnly: Uint8Array;
}

/** alice and carol P2WPKH, bob P2TR. */
export function demoKeys(): DemoKey[] {
  const net = networkParams('regtest');
  return DEMO_LABELS.map((label, i) => {
    const privateKey = sha256(new TextEncoder().encode(`counterparty-marketplace demo wallet ${label}`));
    const xOnly = schnorr.getPublicKey(privateKey);
    const pay = i === 1 ? p2tr(xOnly, undefined, net) : p2wpkh(secp256k1.getPublicKey(privateKey, true), net);
    return { label, address: pay.address!, wif: WIF(net).encode(privateKey), family: i === 1 ? 'p2tr' : 'p2wpkh', privateKey, script: pay.script, xOnly };
  });
}
