export { CounterpartyCoreBackend, type CounterpartyCoreOptions } from './backend.js';
export { CounterpartyApiClient, CounterpartyRequestError, type CpHeaders, type CpReply } from './api-client.js';
export { MEMPOOL_BLOCK_INDEX } from './mappers.js';
export { parseJsonExact, rawQuantity } from './safe-json.js';
