/**
 * The Bitcoin networks the market runs on, as scure `BTC_NETWORK` parameters.
 *
 * testnet4 (BIP-94) and signet (BIP-325) share testnet3's address parameters: bech32 HRP `tb`
 * (BIP-173), base58 versions 0x6f / 0xc4 and WIF 0xef. Regtest uses the same base58 versions but
 * its own HRP `bcrt` (Bitcoin Core `chainparams.cpp`). So a `m…`/`n…`/`2…` address reads the same
 * on testnet4, signet and regtest: base58 carries no way to tell them apart.
 */
import { NETWORK, TEST_NETWORK } from '@scure/btc-signer';

export type Network = 'mainnet' | 'testnet4' | 'signet' | 'regtest';

export const NETWORKS: readonly Network[] = Object.freeze(['mainnet', 'testnet4', 'signet', 'regtest']);

/** Scure's network parameter shape (bech32 HRP, base58 version bytes, WIF prefix). */
export interface BtcNetworkParams {
  readonly bech32: string;
  readonly pubKeyHash: number;
  readonly scriptHash: number;
  readonly wif: number;
}

const REGTEST: BtcNetworkParams = Object.freeze({ ...TEST_NETWORK, bech32: 'bcrt' });

/** Scure parameters of `network`. */
export function networkParams(network: Network): BtcNetworkParams {
  switch (network) {
    case 'mainnet':
      return NETWORK;
    case 'testnet4':
    case 'signet':
      return TEST_NETWORK;
    case 'regtest':
      return REGTEST;
  }
}

/** Type guard for untrusted strings such as configuration values. */
export function isNetwork(value: unknown): value is Network {
  return typeof value === 'string' && (NETWORKS as readonly string[]).includes(value);
}
