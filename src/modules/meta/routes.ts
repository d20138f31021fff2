/**
 * GET /v1/meta: what a client checks once before it trades. Which network the market serves (a
 * client built for mainnet must refuse a regtest market before it decodes an address), the API
 * and build versions, the node's fee floor now, the market signer's keys and the limits a client
 * plans around. Public and cached like the other reads no market event changes.
 */
import fs from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { BODY_LIMIT } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { Nullable, UnixSeconds } from '../../http/validators.js';
import { API_VERSION } from '../../http/openapi.js';
import { BUCKET_CLASSES, LIMITS } from '../../limits/classes.js';
import { MAX_LINES, MAX_UNITS } from '../checkout/index.js';
import { MIN_PRICE_SATS } from '../listings/index.js';

const PAGE_MAX = 100;

const RateLimit = Type.Object(
  {
    per_minute: Type.Integer({ minimum: 1, description: 'requests per sliding 60 s per session address (per IP when anonymous)' }),
    ip_ceiling_per_minute: Nullable(Type.Integer({ minimum: 1, description: 'everything from one IP together; null when none' })),
    scope: Type.Union([Type.Literal('route'), Type.Literal('shared')], { description: '`route`: each route has its own budget; `shared`: one budget across the class' }),
  },
  { additionalProperties: false },
);

const Meta = Type.Object(
  {
    network: Type.Union(['mainnet', 'testnet4', 'signet', 'regtest'].map((n) => Type.Literal(n)), {
      description: 'the Bitcoin network of every address, PSBT and transaction here; a client for another network must refuse to trade',
    }),
    devnet: Type.Boolean({ description: 'true on the built-in regtest chain: /devnet/* (faucet, mine, sync) and the demo wallets exist' }),
    api_version: Type.String({ description: 'the API version (the OpenAPI document `info.version`); paths start with /v1' }),
    build: Type.Object(
      {
        version: Type.String({ description: 'the server package version' }),
        commit: Nullable(Type.String({ description: 'the commit the build was made from (BUILD_COMMIT); null when not set' })),
      },
      { additionalProperties: false },
    ),
    fee_floor_sat_vb: Nullable(
      Type.Number({ minimum: 0, description: "the node's relay floor now, sat/vB (the higher of its mempool minimum and relay fee); a transaction below it is not relayed. Null while the node cannot be reached" }),
    ),
    market_signer: Nullable(
      Type.Object(
        {
          protocol_version: Type.Literal('funded_policy_offer_v1'),
          current_pubkey: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'x-only key (BIP-340) the signer co-signs with now' }),
          keys: Type.Array(
            Type.Object({ version: Type.Integer({ minimum: 1 }), pubkey: Type.String({ pattern: '^[0-9a-f]{64}$' }), retired_at: Nullable(UnixSeconds) }, { additionalProperties: false }),
            { description: 'every key version, retired ones included; details at GET /v1/market-signer' },
          ),
        },
        { additionalProperties: false, description: 'null while the signer cannot be reached' },
      ),
    ),
    platform_fee: Type.Object(
      { bps: Type.Integer({ minimum: 0 }), min_sats: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false, description: 'per unit sold: max(min_sats, price × bps / 10000)' },
    ),
    limits: Type.Object(
      {
        rate_limits: Type.Object(Object.fromEntries(BUCKET_CLASSES.map((c) => [c, RateLimit])), { additionalProperties: false }),
        page_size_max: Type.Integer({ description: 'rows per page of every paged read' }),
        body_bytes_max: Type.Integer({ description: 'JSON request body' }),
        checkout_lines_max: Type.Integer(),
        checkout_units_max: Type.Integer(),
        listing_price_min_sats: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'Meta' },
);

/** package.json two folders up from this area, in src/ and in dist/ alike. */
const serverVersion = (): string => {
  try {
    return (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
};

export function metaRoutes(app: App, ctx: Context): void {
  const version = serverVersion();
  const rate_limits = Object.fromEntries(
    BUCKET_CLASSES.map((c) => [c, { per_minute: LIMITS[c].principalLimit, ip_ceiling_per_minute: LIMITS[c].ipCeiling, scope: LIMITS[c].scope }]),
  );
  app.get(
    '/v1/meta',
    {
      config: { cache: { public: 30, market: false }, limit: 'uncached_read' },
      schema: {
        tags: ['market'],
        summary: 'Network, versions, fee floor, signer keys and limits',
        description:
          'Public, cached 30 s. Read it once before trading: `network` tells which addresses and transactions the market takes (a client built for another network must stop with its own error, not a decoding failure), `api_version` the contract version, `fee_floor_sat_vb` the lowest fee rate the node relays now, `market_signer` the keys collection offers and co-signed listings are co-signed with, `limits` the budgets and sizes a client plans around. The node and the signer being unreachable leaves their fields null; the answer is still 200.',
        response: { 200: Ok(Meta), ...errorResponses },
      },
    },
    async () => {
      const [fees, signer] = await Promise.all([ctx.chain.bitcoin.estimateFees().catch(() => null), ctx.signer.info().catch(() => null)]);
      return {
        result: {
          network: ctx.config.NETWORK,
          devnet: ctx.devnet !== undefined,
          api_version: API_VERSION,
          build: { version, commit: ctx.config.BUILD_COMMIT ?? null },
          fee_floor_sat_vb: fees ? fees.minimum : null,
          market_signer: signer
            ? {
                protocol_version: 'funded_policy_offer_v1' as const,
                current_pubkey: signer.current.pubkey,
                keys: signer.keys.map((k) => ({ version: k.version, pubkey: k.pubkey, retired_at: k.retired_at })),
              }
            : null,
          platform_fee: { bps: ctx.config.MARKET_FEE_BPS, min_sats: ctx.config.MARKET_FEE_MIN_SATS },
          limits: {
            rate_limits,
            page_size_max: PAGE_MAX,
            body_bytes_max: BODY_LIMIT,
            checkout_lines_max: MAX_LINES,
            checkout_units_max: MAX_UNITS,
            listing_price_min_sats: MIN_PRICE_SATS,
          },
        },
      };
    },
  );
}
