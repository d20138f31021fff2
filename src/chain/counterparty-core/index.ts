export { CounterpartyCoreBackend, type CounterpartyCoreOptions } from './backend.js';
export { CounterpartyApiClient, CounterpartyRequestError, ElectrsUnavailable, electrsFailureOf, ELECTRS_ADVICE, type CpHeaders, type CpReply, type ElectrsFailure } from './api-client.js';
export { MEMPOOL_BLOCK_INDEX } from './mappers.js';
export { parseJsonExact, rawQuantity } from './safe-json.js';
export { CounterpartyUtxoSource } from './utxo-source.js';
