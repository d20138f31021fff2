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
    const { BitcoinCoreBackend, BitcoinCoreUtxoSource } = await import('./bitcoin-core/index.js');
    const { CounterpartyCoreBackend, CounterpartyUtxoSource } = await import('./counterparty-core/index.js');
    const counterparty = new CounterpartyCoreBackend({ url: config.COUNTERPARTY_API_URL!, logger });
    const utxos =
      config.UTXO_SOURCE === 'bitcoin-core'
        ? new BitcoinCoreUtxoSource({ url: config.BITCOIN_RPC_URL!, cacheMs: config.UTXO_SCAN_CACHE_MS, logger })
        : new CounterpartyUtxoSource(counterparty, config.MARKET_FEE_ADDRESS ?? probeAddress(config.NETWORK));
    const bitcoin = new BitcoinCoreBackend({ url: config.BITCOIN_RPC_URL!, logger });
    if (!config.BITCOIN_ZMQ_HASHBLOCK) return { chain: { bitcoin, counterparty, utxos } };
    const { ZmqBlockNotices } = await import('./bitcoin-core/zmq-blocks.js');
    return { chain: { bitcoin, counterparty, utxos, blocks: new ZmqBlockNotices(config.BITCOIN_ZMQ_HASHBLOCK, logger) } };
  }
  const { openDevnetForMarket } = await import('./devnet/market-devnet.js');
  return openDevnetForMarket(config, store, clock, logger);
}

/**
 * An address whose coins the Counterparty UTXO source's probe asks for: Counterparty's burn
 * address of the network (valid, public, and asking for it reveals nothing about the market).
 */
function probeAddress(network: Config['NETWORK']): string {
  return network === 'mainnet' ? '1CounterpartyXXXXXXXXXXXXXXXUWLpVr' : 'mvCounterpartyXXXXXXXXXXXXXXW24Hef';
}
