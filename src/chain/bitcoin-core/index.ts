export { BitcoinCoreBackend, type BitcoinCoreOptions } from './backend.js';
export { DEFAULT_FEE_TARGETS, type FeeTargets } from './fees.js';
export { RPC, RpcError } from './rpc-client.js';
export { txidOfHex } from './relay.js';
export type { ChainLogger, RetryPolicy } from '../upstream-http.js';
export { BitcoinCoreUtxoSource, type BitcoinCoreUtxoOptions } from './utxo-scan.js';
