/** The devnet engine: `Devnet.open(store, clock, options)`; see README.md. */
export { Devnet, type DevnetOptions, type CounterpartyFault } from './devnet.js';
export { DevnetUtxoSource } from './utxo-source.js';
export { DevnetRpcError } from './rpc-views.js';
export { MEMPOOL_BLOCK_INDEX, type BalanceRow, type Page } from './api-views.js';
export type { DevnetTables } from './tables.js';
export type { InputVerifier } from './verifier.js';
export { openDevnetForMarket } from './market-devnet.js';
