import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { Store } from '../store/db.js';
import type { Chain } from './ports.js';
import type { DevnetControl } from './devnet-control.js';

/**
 * Picks what sits behind the chain ports. Production: Bitcoin Core JSON-RPC
 * and Counterparty Core API v2 adapters. Default: the in-process devnet,
 * persisted in the market's own store.
 */
export async function createChain(config: Config, store: Store, clock: Clock, logger: Logger): Promise<{ chain: Chain; devnet?: DevnetControl }> {
  if (config.CHAIN === 'bitcoin-core') {
    const { BitcoinCoreBackend } = await import('./bitcoin-core/index.js');
    const { CounterpartyCoreBackend } = await import('./counterparty-core/index.js');
    return {
      chain: {
        bitcoin: new BitcoinCoreBackend({ url: config.BITCOIN_RPC_URL!, logger }),
        counterparty: new CounterpartyCoreBackend({ url: config.COUNTERPARTY_API_URL!, logger }),
      },
    };
  }
  const { openDevnetForMarket } = await import('./devnet/market-devnet.js');
  return openDevnetForMarket(config, store, clock, logger);
}
