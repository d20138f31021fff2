import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Context } from '../../context.js';
import { COUNTERPARTY_FAULTS, type DevnetControl } from '../../chain/devnet-control.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { Address, PositiveQuantityRaw, Sats, Txid, Vout } from '../../http/validators.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { ApiError } from '../../http/errors.js';
import { TxRejected } from '../../chain/ports.js';
import { DevnetNodeRefused, DevnetUsageError } from '../../chain/devnet/usage-error.js';
import { DEMO_LABELS, demoKeys } from '../../chain/devnet/demo-keys.js';
import { signBip322Simple } from '../../bitcoin/bip322.js';

const tags = ['devnet'];

/**
 * Devnet control: never registered in production (CHAIN=bitcoin-core). These
 * routes make coins, assets and blocks for integrators' sandboxes and tests.
 */
type App = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;

export function devnetRoutes(app: App, deps: Pick<Context, 'sync'> & { network: Context['config']['NETWORK'] }, devnet: DevnetControl): void {
  const network = deps.network;
  const wrap = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof TxRejected) throw new ApiError('invalid_request', `devnet refused: ${e.reason}`);
      if (e instanceof DevnetUsageError) throw new ApiError('invalid_request', e.message);
      if (e instanceof DevnetNodeRefused) throw new ApiError('state_changed', `${e.message}; read the chain again and retry`, { method: e.method, reason: e.reason });
      throw e;
    }
  };

  app.post(
    '/devnet/faucet',
    {
      schema: {
        tags,
        summary: 'Pay regtest coins to an address, confirmed',
        description: 'Sends a real signed transaction from the devnet miner wallet and mines it, so the returned UTXO has one confirmation.',
        body: Type.Object({ address: Address, amount_sats: Sats({ minimum: 546 }) }, { additionalProperties: false }),
        response: { 200: Ok(Type.Object({ txid: Txid, vout: Vout })), ...errorResponses },
      },
    },
    async (req) => {
      requireAddressRole(req.body.address, 'delivery', network, 'body.address');
      return { result: await wrap(() => devnet.faucet(req.body.address, req.body.amount_sats)) };
    },
  );

  app.post(
    '/devnet/sign-message',
    {
      schema: {
        tags,
        summary: 'Sign a message as a demo wallet (sign in from /docs)',
        description:
          "Signs `message` with a demo wallet's published regtest key (alice and carol P2WPKH, bob P2TR; the start banner lists them), BIP-322 simple, as a wallet would. Sign in from this page: POST /v1/auth/challenge with the wallet's `address`, paste the challenge's `message` here, then POST /v1/auth/verify with `address`, `issued_at` and this `signature`, and press Authorize with the token. Only the demo wallets, only on the devnet: this route does not exist with CHAIN=bitcoin-core, and no other key is ever used.",
        body: Type.Object(
          {
            wallet: Type.Union(DEMO_LABELS.map((l) => Type.Literal(l)), { description: 'alice, bob or carol' }),
            message: Type.String({ minLength: 1, maxLength: 4096, description: 'the exact text to sign (the challenge message)' }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Ok(Type.Object({ address: Address, signature: Type.String({ description: 'BIP-322 simple, base64' }) })), ...errorResponses },
      },
    },
    async (req) => {
      const key = demoKeys().find((k) => k.label === req.body.wallet)!;
      return { result: { address: key.address, signature: signBip322Simple(key.privateKey, key.script, req.body.message, key.family === 'p2tr' ? key.xOnly : undefined) } };
    },
  );

  app.post(
    '/devnet/mine',
    {
      schema: {
        tags,
        summary: 'Mine blocks now',
        description: 'Mines `blocks` blocks (1 to 1,000) with the mempool in fee order, paying the coinbase to `address` or the miner wallet; answers the new block hashes and the tip height. The market sees them at its next indexer run, or at once through POST /devnet/sync.',
        body: Type.Object({ blocks: Type.Integer({ minimum: 1, maximum: 1000, default: 1 }), address: Type.Optional(Address) }, { additionalProperties: false }),
        response: { 200: Ok(Type.Object({ block_hashes: Type.Array(Type.String()), height: Type.Integer() })), ...errorResponses },
      },
    },
    async (req) => {
      const hashes = await wrap(() => devnet.mine(req.body.blocks, req.body.address));
      const tip = await devnet.chain.bitcoin.getTip();
      return { result: { block_hashes: hashes, height: tip.height } };
    },
  );

  app.post(
    '/devnet/assets',
    {
      schema: {
        tags,
        summary: 'Issue a Counterparty asset to an address',
        description: 'Picks a free numeric asset id when `asset` is absent. A `longname` (PARENT.child) makes a subasset with a numeric id.',
        body: Type.Object(
          {
            asset: Type.Optional(Type.String({ pattern: '^([B-Z][A-Z]{3,11}|A[1-9][0-9]{16,19})$', description: 'asset name or numeric id' })),
            longname: Type.Optional(Type.String({ pattern: '^[B-Z][A-Z]{3,11}\\.[a-zA-Z0-9.\\-_@!]{1,250}$', description: 'subasset longname' })),
            issuer: Address,
            quantity_raw: PositiveQuantityRaw,
            divisible: Type.Boolean({ default: false }),
            description: Type.Optional(Type.String({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Ok(Type.Object({ asset: Type.String() })), ...errorResponses },
      },
    },
    async (req) => {
      requireAddressRole(req.body.issuer, 'delivery', network, 'body.issuer');
      return { result: await wrap(() => devnet.issueAsset(req.body)) };
    },
  );

  app.post(
    '/devnet/credit',
    {
      schema: {
        tags,
        summary: 'Credit an address-level Counterparty balance (XCP included)',
        description: 'Adds `quantity_raw` of an existing asset (or XCP, for attach fees) to the address-level balance of `address`, as a devnet-only ledger operation recorded with the next block. Any address family Counterparty supports.',
        body: Type.Object({ address: Address, asset: Type.String({ minLength: 3, maxLength: 30 }), quantity_raw: PositiveQuantityRaw }, { additionalProperties: false }),
        response: { 200: Ok(Type.Object({ address: Type.String(), asset: Type.String(), quantity_raw: Type.String() })), ...errorResponses },
      },
    },
    async (req) => {
      requireAddressRole(req.body.address, 'delivery', network, 'body.address');
      await wrap(() => devnet.credit(req.body.address, req.body.asset, req.body.quantity_raw));
      return { result: req.body };
    },
  );

  app.post(
    '/devnet/transfer-issuance',
    {
      schema: {
        tags,
        summary: "Transfer an asset's issuance rights",
        description:
          "Moves the issuance rights of `asset` from its current owner `from` to `to`, as Counterparty Core records an issuance with a transfer destination (no units move), in a block of its own. The asset record keeps its first `issuer`; its `owner` becomes `to`. Only the current owner can transfer or reissue. Artist profile edits follow the owner.",
        body: Type.Object({ asset: Type.String({ minLength: 4, maxLength: 30 }), from: Address, to: Address }, { additionalProperties: false }),
        response: { 200: Ok(Type.Object({ asset: Type.String(), from: Type.String(), to: Type.String() })), ...errorResponses },
      },
    },
    async (req) => {
      requireAddressRole(req.body.to, 'delivery', network, 'body.to');
      await wrap(() => devnet.transferIssuance(req.body));
      return { result: req.body };
    },
  );

  app.post(
    '/devnet/reorg',
    {
      schema: {
        tags,
        summary: 'Replace the last N blocks',
        description: 'Disconnects the last `depth` blocks (their transactions go back to the mempool) and mines depth+1 empty blocks, so the chain is longer and the hashes at those heights change.',
        body: Type.Object({ depth: Type.Integer({ minimum: 1, maximum: 100 }) }, { additionalProperties: false }),
        response: { 200: Ok(Type.Object({ disconnected: Type.Integer(), height: Type.Integer(), hash: Type.String() })), ...errorResponses },
      },
    },
    async (req) => {
      const r = await wrap(() => devnet.reorg(req.body.depth));
      return { result: { disconnected: r.disconnected, height: r.tip.height, hash: r.tip.hash } };
    },
  );

  app.post(
    '/devnet/mempool/drop',
    {
      config: { optionalBody: true },
      schema: {
        tags,
        summary: 'Empty the node’s mempool',
        description: 'Forgets every unconfirmed transaction, as a Bitcoin node restarted without its mempool does; the market’s recovery relays its live settlements again. Takes no body.',
        response: { 200: Ok(Type.Object({ dropped: Type.Integer() })), ...errorResponses },
      },
    },
    async () => ({ result: await wrap(() => devnet.dropMempool()) }),
  );

  app.post(
    '/devnet/counterparty-fault',
    {
      schema: {
        tags,
        summary: 'Make the Counterparty API fail as a real Counterparty Core does',
        description:
          'From now on the devnet\'s Counterparty face (HTTP and in process) answers as Counterparty Core does when `not_ready` (503 `Counterparty not ready` on every route but `/v2/`, while it catches up), `electrs_not_configured` or `electrs_failed` (400 with Core\'s Electrs messages on `/v2/bitcoin/addresses/{address}/utxos`); `none` ends it. The market then answers 503 `upstream_unavailable` where it needs what failed. Answers the fault now in force; a devnet following a real node refuses (invalid_request).',
        body: Type.Object({ fault: Type.Union(COUNTERPARTY_FAULTS.map((f) => Type.Literal(f))) }, { additionalProperties: false }),
        response: { 200: Ok(Type.Object({ fault: Type.Union(COUNTERPARTY_FAULTS.map((f) => Type.Literal(f))) })), ...errorResponses },
      },
    },
    async (req) => {
      await wrap(async () => devnet.setCounterpartyFault(req.body.fault));
      return { result: { fault: req.body.fault } };
    },
  );

  app.post(
    '/devnet/sync',
    {
      config: { optionalBody: true },
      schema: {
        tags,
        summary: 'Bring the market to the chain tip now',
        description: 'Runs the market’s indexer and recovery to the tip and clears the response cache; answers when the market reflects the chain. Takes no body: none, an empty one or `{}`.',
        response: { 200: Ok(Type.Object({ height: Type.Integer(), hash: Type.String() })), ...errorResponses },
      },
    },
    async () => {
      await deps.sync();
      const tip = await devnet.chain.bitcoin.getTip();
      return { result: tip };
    },
  );

  app.get(
    '/devnet/addresses/:address/utxos',
    {
      schema: {
        tags,
        summary: 'UTXOs of an address, mempool included',
        description: 'Every unspent output paying `address`, confirmed or in the mempool (confirmations 0), with its value; spent outputs, including those spent in the mempool, are left out.',
        params: Type.Object({ address: Address }),
        response: {
          200: Ok(Type.Array(Type.Object({ txid: Txid, vout: Vout, value_sats: Type.Integer(), confirmations: Type.Integer() }))),
          ...errorResponses,
        },
      },
    },
    async (req) => {
      requireAddressRole(req.params.address, 'delivery', network, 'params.address');
      return { result: await devnet.addressUtxos(req.params.address) };
    },
  );
}
