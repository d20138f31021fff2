/**
 * Trade kernel: owns where the platform fee is paid, for every way to fill.
 *
 * Where the platform fee is paid. MARKET_FEE_ADDRESS when set; on the devnet, when unset, an
 * address derived from a fixed seed (regtest only, never real funds) so `npm start` works with
 * no setup. On a real chain with no (or a bad) address the market cannot build a settlement that
 * pays it, so composing answers 503 service_unavailable instead of guessing.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p2wpkh } from '@scure/btc-signer';
import type { Config } from '../config.js';
import { decodeAddress } from '../bitcoin/address.js';
import { networkParams } from '../bitcoin/networks.js';
import { ApiError } from '../http/errors.js';

/** The devnet's platform-fee address (P2WPKH of a key derived from a fixed seed). */
export function devnetFeeAddress(network: Config['NETWORK']): string {
  let k = sha256(new TextEncoder().encode('cpmkt-devnet-market-fee'));
  while (!secp256k1.utils.isValidSecretKey(k)) k = sha256(k);
  return p2wpkh(secp256k1.getPublicKey(k, true), networkParams(network)).address!;
}

export function marketFeeAddress(config: Pick<Config, 'MARKET_FEE_ADDRESS' | 'CHAIN' | 'NETWORK'>): string {
  if (config.MARKET_FEE_ADDRESS) return config.MARKET_FEE_ADDRESS;
  if (config.CHAIN === 'devnet') return devnetFeeAddress(config.NETWORK);
  throw new ApiError('service_unavailable', 'the market has no platform fee address configured (MARKET_FEE_ADDRESS)');
}

/** The output script of the platform-fee output. */
export function marketFeeScript(config: Pick<Config, 'MARKET_FEE_ADDRESS' | 'CHAIN' | 'NETWORK'>): Uint8Array {
  const address = marketFeeAddress(config);
  const d = decodeAddress(address, config.NETWORK);
  if (!d.ok) throw new ApiError('service_unavailable', `MARKET_FEE_ADDRESS is not a ${config.NETWORK} address`);
  return d.script;
}
