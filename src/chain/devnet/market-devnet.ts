/**
 * The devnet as the market boots it (CHAIN=devnet): opened on the market's own store, with the
 * configured attach fee, and interval mining started when DEVNET_BLOCK_INTERVAL_MS > 0.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Store } from '../../store/db.js';
import type { Chain } from '../ports.js';
import { Devnet } from './devnet.js';
import { DevnetUtxoSource } from './utxo-source.js';

export async function openDevnetForMarket(config: Config, store: Store, clock: Clock, logger: Logger): Promise<{ chain: Chain; devnet: Devnet }> {
  const devnet = await Devnet.open(store, clock, {
    blockIntervalMs: config.DEVNET_BLOCK_INTERVAL_MS,
    attachFeeRaw: config.DEVNET_ATTACH_FEE_RAW ?? null,
    onError: (err: unknown) => logger.error({ err }, 'devnet: interval mining failed'),
    counterpartyFault: config.DEVNET_COUNTERPARTY_FAULT,
  });
  if (config.DEVNET_BLOCK_INTERVAL_MS > 0) devnet.startMining();
  // UTXO_SOURCE picks the manner of the wallet-coin source, as it picks the adapter off the devnet.
  const utxos = new DevnetUtxoSource(devnet, config.UTXO_SOURCE);
  return { chain: { ...devnet.chain, utxos }, devnet };
}
