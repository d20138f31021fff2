import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { finishDocument } from './openapi-components.js';

const DESCRIPTION = `HTTP JSON API of a marketplace for Counterparty collectibles on Bitcoin.

Every success is \`{result: …}\`; paged reads are \`{result, result_count, next_cursor}\` with an opaque cursor bound to its route and filters (pass it back unchanged with the same filters). Every failure is the error envelope \`{error, code, …extras}\`: branch on \`code\`.

Sessions: sign in with a Bitcoin message signature (\`/v1/auth/*\`) and send the token as \`x-session-token\`. A session never authorizes spending; every trade is made of wallet signatures the service verifies.

Rate limits are exact sliding 60-second windows (429 \`rate_limited\` with \`retry_after_seconds\` and \`Retry-After\`). Public reads carry \`Cache-Control\`; owner reads are \`no-store\`.

Where this service departs from the marketplace API specification, on purpose, the difference and its reason are listed in one place: \`docs/deviations.md\` in the service's repository. Everything else this document says follows the specification.`;

/** Kept in step with the faces' own tables by test/http/openapi.test.ts. */
export const DEVNET_DESCRIPTION = `Devnet control (CHAIN=devnet only; never present in production; the server listens on 127.0.0.1 unless HOST is set, since these routes are unauthenticated by design).

Besides the routes below, the devnet speaks two other projects' protocols so their real adapters can point at it (they are not part of this document):

- \`POST /devnet/rpc\`: Bitcoin Core JSON-RPC (1.0 and 2.0, batches too). Methods: getblockchaininfo, getblockcount, getindexinfo (txindex, synced), scantxoutset (addr descriptors), getbestblockhash, getblockhash, getblockheader, getblock, getrawtransaction, gettxout, getrawmempool, getmempoolentry, getmempoolinfo, getnetworkinfo, estimatesmartfee, testmempoolaccept, sendrawtransaction, submitpackage, generatetoaddress, invalidateblock.
- \`GET /devnet/counterparty/v2/…\`: Counterparty Core API v2. Routes: /, /routes, /addresses/{address}/balances, /utxos/{utxo}/balances, /utxos/withbalances, /assets/{asset}, /assets/{asset}/balances, /blocks/last, /blocks/{block_index}, /blocks/{block_index}/events, /blocks/{block_index}/events/{event}, /events, /mempool/events, /transactions/{tx_hash}, /compose/attach/estimatexcpfees, /bitcoin/addresses/{address}/utxos.

Point the market at them with CHAIN=bitcoin-core BITCOIN_RPC_URL=http://127.0.0.1:PORT/devnet/rpc COUNTERPARTY_API_URL=http://127.0.0.1:PORT/devnet/counterparty (or run the devnet alone: npm run devnet).`;

/** The API's version: the document's `info.version`, what GET /v1/meta reports and the client is versioned with. */
export const API_VERSION = '1.0.0';

/** The OpenAPI 3.1 document, generated from the same schemas that validate requests. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    // Shared schemas as named $ref components, defaults not required (http/openapi-components.ts).
    transformObject: (documentObject) =>
      finishDocument((documentObject as { openapiObject: Record<string, unknown> }).openapiObject) as never,
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Counterparty Collectibles Marketplace API', version: API_VERSION, description: DESCRIPTION },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'header', name: 'x-session-token', description: 'Session token from /v1/auth/verify or /v1/auth/session; lasts 24 hours.' },
        },
      },
      tags: [
        { name: 'auth', description: 'Sign-in with a Bitcoin message signature' },
        { name: 'market', description: 'Public market reads' },
        { name: 'listings', description: 'Seller side: preflights, attach, listings' },
        { name: 'checkout', description: 'Buyer side: quotes and completion' },
        { name: 'transactions', description: 'Bitcoin transaction status' },
        { name: 'events', description: 'Event feeds' },
        { name: 'webhooks', description: 'Signed push delivery of your own events (Standard Webhooks): the headers, the signature, retries and URL rules are described on the registration route' },
        { name: 'devnet', description: DEVNET_DESCRIPTION },
        { name: 'health', description: 'Liveness and readiness' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/v1/openapi.json', { schema: { hide: true }, config: { cache: { public: 30 } } }, async () => app.swagger());
}
