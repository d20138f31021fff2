/**
 * Which Bitcoin network the market serves, and addresses read on it. An address of another
 * network is `network_mismatch` naming the field it came in (never a base58 or bech32 error);
 * text that is no address at all is `invalid_request`.
 */
import { Address, OutScript } from '@scure/btc-signer';
import { MarketError } from './errors.js';
import { params, type Network } from './psbt.js';

const NETWORKS: Network[] = ['mainnet', 'testnet', 'regtest'];

/** The server's name for its network as the client's (`bitcoin`/`main` → mainnet; signet and testnet4 read as testnet, their addresses are alike). */
export function normalizeNetwork(n: unknown): Network | undefined {
  if (typeof n !== 'string') return undefined;
  const v = n.toLowerCase();
  if (v === 'mainnet' || v === 'bitcoin' || v === 'main') return 'mainnet';
  if (v === 'regtest' || v === 'devnet') return 'regtest';
  if (v === 'testnet' || v === 'testnet3' || v === 'testnet4' || v === 'signet' || v === 'test') return 'testnet';
  return undefined;
}

/** The network whose address this is (testnet and regtest share base58 prefixes: regtest by bech32 `bcrt` only). */
export function networkOfAddress(address: string): Network | undefined {
  for (const n of NETWORKS) {
    try {
      Address(params(n)).decode(address);
      return n;
    } catch {
      /* not this one */
    }
  }
  return undefined;
}

/** The output script of `address` on `network`; a typed error naming `field` otherwise. */
export function decodeAddress(address: unknown, network: Network, field: string): Uint8Array {
  if (typeof address !== 'string' || address === '') throw new MarketError('invalid_request', `${field}: an address is required`, null, { field });
  try {
    return OutScript.encode(Address(params(network)).decode(address));
  } catch {
    const other = networkOfAddress(address);
    if (other && other !== network) {
      throw new MarketError('network_mismatch', `${field}: ${address} is a ${other} address; the market is on ${network}`, null, { field, network, address_network: other });
    }
    throw new MarketError('invalid_request', `${field}: ${address} is not a valid ${network} address`, null, { field });
  }
}
