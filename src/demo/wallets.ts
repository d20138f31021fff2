/**
 * The demo market's wallets: deterministic regtest keys, published on purpose so sandbox users
 * can sign as the demo sellers (never used on a real chain).
 */
import { demoKeys } from '../chain/devnet/demo-keys.js';
import type { CatalogFile } from '../modules/market/catalog-import.js';
import demoCatalog from './catalog.json' with { type: 'json' };

export interface DemoWallet {
  label: string;
  address: string;
  /** Regtest only: published so sandbox users can sign as the demo sellers. */
  wif: string;
}

/** A demo wallet with what the seed signs with (regtest keys, published on purpose). */
export interface DemoSigner extends DemoWallet {
  family: 'p2wpkh' | 'p2tr';
  privateKey: Uint8Array;
  /** The output script paying `address`. */
  script: Uint8Array;
  /** The BIP-86 internal key of a P2TR wallet. */
  xOnly: Uint8Array;
}

/** The demo wallets with their keys: alice and carol P2WPKH, bob P2TR (chain/devnet/demo-keys.ts). */
export function demoSigners(): DemoSigner[] {
  return demoKeys();
}

/** Deterministic regtest wallets for the demo market (the same on every machine). */
export function demoWallets(): DemoWallet[] {
  return demoSigners().map(({ label, address, wif }) => ({ label, address, wif }));
}

/** Who the seed issues a catalogue asset to: the wallets take turns in catalogue order. */
export function demoOwnerOf(asset: string, signers: DemoSigner[] = demoSigners()): DemoSigner {
  const i = (demoCatalog as CatalogFile).assets.findIndex((a) => a.asset === asset);
  if (i < 0) throw new Error(`${asset} is not in the demo catalogue`);
  return signers[i % signers.length]!;
}
