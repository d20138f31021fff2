import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import path from 'node:path';
import { decodeAddress } from './bitcoin/address.js';
import { FAILPOINTS } from './failpoint.js';

/**
 * One schema over the environment, parsed once at boot and passed in.
 * Every default makes `npm start` work with no setup: SQLite under ./data,
 * the in-process devnet on regtest, port 8080.
 */
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  /** Listen address; default 127.0.0.1 on the devnet (its /devnet/* control routes are open by design), else 0.0.0.0. */
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  DATA_DIR: Type.String({ default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^(sqlite:.+|postgres(ql)?://.+)$' })),
  /** PostgreSQL schema to use (tests isolate themselves with one schema each). */
  DATABASE_SCHEMA: Type.Optional(Type.String({ pattern: '^[a-z_][a-z0-9_]{0,62}$' })),
  /** PostgreSQL only: a read replica's URL, for public market reads (same schema); unset: every read goes to DATABASE_URL. */
  DATABASE_READ_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://.+' })),
  /** PostgreSQL: how long a request waits for a database connection (the pool's queue included) before it answers 503. */
  PG_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5_000 }),
  /** PostgreSQL: how long a query may go unanswered before its connection is dropped and the request answers 503 (0: never; migrations are never cut). */
  PG_QUERY_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 30_000 }),
  /** PostgreSQL: how often an instance checks its leadership session and tries the roles it does not hold. */
  LEADERSHIP_INTERVAL_MS: Type.Integer({ minimum: 50, default: 2_000 }),
  /** The commit this build was made from, reported by GET /v1/meta (set it in a deployment; unset: null). */
  BUILD_COMMIT: Type.Optional(Type.String({ pattern: '^[0-9a-f]{7,40}$' })),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+' })),
  /** Key prefix on Redis, so several markets (or tests) can share one server. */
  REDIS_PREFIX: Type.String({ default: 'cpmkt:' }),
  CHAIN: Type.Union([Type.Literal('devnet'), Type.Literal('bitcoin-core')], { default: 'devnet' }),
  BITCOIN_RPC_URL: Type.Optional(Type.String({ pattern: '^https?://.+' })),
  COUNTERPARTY_API_URL: Type.Optional(Type.String({ pattern: '^https?://.+' })),
  /** CHAIN=bitcoin-core: Bitcoin Core's `-zmqpubhashblock` endpoint; each block it announces runs the tip check at once. */
  BITCOIN_ZMQ_HASHBLOCK: Type.Optional(Type.String({ pattern: '^(tcp|ipc)://.+' })),
  /**
   * Where the market learns a wallet's coins: `counterparty` (Counterparty Core's
   * /v2/bitcoin/addresses/{a}/utxos, which needs Electrs behind Core) or `bitcoin-core`
   * (scantxoutset on BITCOIN_RPC_URL: no Electrs, one full UTXO-set scan per uncached call).
   */
  UTXO_SOURCE: Type.Union([Type.Literal('counterparty'), Type.Literal('bitcoin-core')], { default: 'counterparty' }),
  /** UTXO_SOURCE=bitcoin-core: how long one wallet's scan is reused at the same tip, ms. */
  UTXO_SCAN_CACHE_MS: Type.Integer({ minimum: 0, default: 30_000 }),
  /** Devnet: make its Counterparty face (HTTP and in process) answer as a node that is catching up, or whose Electrs is absent or down. */
  DEVNET_COUNTERPARTY_FAULT: Type.Union(
    [Type.Literal('none'), Type.Literal('not_ready'), Type.Literal('electrs_not_configured'), Type.Literal('electrs_failed')],
    { default: 'none' },
  ),
  NETWORK: Type.Optional(
    Type.Union([Type.Literal('mainnet'), Type.Literal('testnet4'), Type.Literal('signet'), Type.Literal('regtest')]),
  ),
  /** The long poll: the indexer's backstop run, whatever the tip check says. */
  INDEXER_INTERVAL_MS: Type.Integer({ minimum: 50, default: 120_000 }),
  /** The cheap tip check (`getbestblockhash`): the indexer runs when the tip moved; 0 turns it off (the long poll alone). */
  TIP_CHECK_INTERVAL_MS: Type.Union([Type.Literal(0), Type.Integer({ minimum: 50, maximum: 60_000 })], { default: 1_000 }),
  RECOVERY_INTERVAL_MS: Type.Integer({ minimum: 50, default: 30_000 }),
  /**
   * How long a collection or exact accept the node refused for a wait-class reason (chain_too_long,
   * truc: an input a reorg or a held relay left unconfirmed) stays journaled with its claims while
   * recovery relays it again, counted from its journaling; a refusal after it releases the claims.
   */
  SETTLEMENT_WAIT_HOLD_S: Type.Integer({ minimum: 0, maximum: 86_400, default: 3_600 }),
  /**
   * The safety-net poll of the market generation (src/http/cache-generation.ts): a commit heard
   * through the event log's notification ends stale cached reads at once; this poll only covers
   * a lost notification. Tests raise it to prove that the notification, not the poll, does it.
   */
  CACHE_GENERATION_POLL_MS: Type.Integer({ minimum: 50, default: 1_000 }),
  /** Devnet: mine a block every N ms (0 = only on demand). */
  DEVNET_BLOCK_INTERVAL_MS: Type.Integer({ minimum: 0, default: 0 }),
  /**
   * Testing only: this instance's clock runs this many ms ahead (negative: behind) of the
   * machine's, so the simulator can run instances whose clocks disagree (npm run simulate).
   */
  CLOCK_SKEW_MS: Type.Integer({ minimum: -60_000, maximum: 60_000, default: 0 }),
  /** Devnet: the attach XCP fee formula, or a fixed fee when set. */
  DEVNET_ATTACH_FEE_RAW: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]*)$' })),
  /** Devnet: `-minrelaytxfee` in sat/vB (Core 29.1+: 0.1; set 1 for Core 28 / 29.0). */
  DEVNET_MIN_RELAY_FEE_RATE: Type.Number({ minimum: 0, maximum: 1000, default: 0.1 }),
  /** Devnet: `-incrementalrelayfee` in sat/vB (Core 29.1+: 0.1; set 1 for Core 28 / 29.0). */
  DEVNET_INCREMENTAL_RELAY_FEE_RATE: Type.Number({ minimum: 0, maximum: 1000, default: 0.1 }),
  /** Seed a demo market on an empty store (devnet only). */
  SEED_DEMO: Type.Boolean({ default: true }),
  CATALOG_FILE: Type.Optional(Type.String()),
  /** Platform fee in basis points of the price, with a floor in sats. */
  MARKET_FEE_BPS: Type.Integer({ minimum: 0, maximum: 10_000, default: 200 }),
  MARKET_FEE_MIN_SATS: Type.Integer({ minimum: 0, default: 546 }),
  /** Where platform fees are paid; a devnet default is derived when unset. */
  MARKET_FEE_ADDRESS: Type.Optional(Type.String({ minLength: 14 })),
  /** Comma-separated origins a connect-time sign-in proof may be bound to; default http://localhost:PORT and http://127.0.0.1:PORT. */
  AUTH_ALLOWED_ORIGINS: Type.Optional(Type.String()),
  /** The domain (authority) named in sign-in challenges; default localhost:PORT. */
  AUTH_DOMAIN: Type.Optional(Type.String({ minLength: 1 })),
  /** Secret for cursors and ids that must not be forged; derived and stored when unset. */
  SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /** A separate market signer (`npm run signer`); unset: the signer runs in this process over SIGNER_DIR. */
  SIGNER_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** The shared secret of the signer's HTTP interface (required with SIGNER_URL and to serve one). */
  SIGNER_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /** The signer's own directory (its key file and decision log, never the market's database); default DATA_DIR/signer. */
  SIGNER_DIR: Type.Optional(Type.String({ minLength: 1 })),
  /** `npm run signer`: where it listens (loopback by default). */
  SIGNER_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 18444 }),
  SIGNER_HOST: Type.String({ default: '127.0.0.1' }),
  /** The market wallet that funds collection-offer anchors (its key file lives here, never in the database); default DATA_DIR/market-wallet. */
  MARKET_WALLET_DIR: Type.Optional(Type.String({ minLength: 1 })),
  /** Confirmed free anchors the pool keeps (one per open collection-offer funding set being placed); 0 disables collection offers' capacity. */
  ANCHOR_POOL_SIZE: Type.Integer({ minimum: 0, maximum: 1000, default: 10 }),
  /** The value of one anchor output (P2TR, at least its 330-sat dust limit). */
  ANCHOR_VALUE_SATS: Type.Integer({ minimum: 330, maximum: 100_000, default: 1_000 }),
  /** Anchors one bidder address may hold through unplaced preflights: its next preflight releases its oldest. */
  ANCHOR_HOLDS_PER_ADDRESS: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
  /** Anchors the unplaced preflights from one IP (its /64 for IPv6) may hold: beyond, 429 rate_limited until one is placed, released or lapses. */
  ANCHOR_HOLDS_PER_IP: Type.Integer({ minimum: 1, maximum: 1_000, default: 4 }),
  /** Webhooks: the dispatcher's period, one attempt's timeout, and how long an endpoint may fail before it is disabled. */
  WEBHOOK_INTERVAL_MS: Type.Integer({ minimum: 50, default: 5_000 }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 15_000 }),
  /** Webhooks: the retry delays after the 1st, 2nd, … failure in ms, comma-separated (the last repeats); unset: Standard Webhooks' schedule (5 s, 5 min, 30 min, 2 h, …). */
  WEBHOOK_RETRY_SCHEDULE_MS: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}(,[0-9]{1,9})*$' })),
  WEBHOOK_DISABLE_AFTER_HOURS: Type.Number({ exclusiveMinimum: 0, maximum: 8_760, default: 72 }),
  /** Webhooks: how long registration waits for the URL's host to resolve; a slower resolver defers the address check to delivery. */
  WEBHOOK_DNS_TIMEOUT_MS: Type.Integer({ minimum: 50, maximum: 10_000, default: 1_000 }),
  /** When set, GET /metrics asks for it as a bearer token. */
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  /** The event log (after=, the stream) keeps this many days; an older position answers 410 resync_required. */
  EVENT_LOG_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 7 }),
  /** The stream: heartbeat comment period, concurrent streams per IP and per address, the socket buffer past which a slow client is dropped. */
  STREAM_HEARTBEAT_MS: Type.Integer({ minimum: 50, maximum: 300_000, default: 15_000 }),
  STREAM_MAX_PER_IP: Type.Integer({ minimum: 1, maximum: 10_000, default: 20 }),
  STREAM_MAX_PER_ADDRESS: Type.Integer({ minimum: 1, maximum: 1_000, default: 5 }),
  STREAM_MAX_BUFFER_BYTES: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 1024 * 1024 }),
  /** Trust X-Forwarded-For from this many proxy hops (0: use the socket address). */
  TRUST_PROXY_HOPS: Type.Integer({ minimum: 0, maximum: 10, default: 0 }),
  /** Crash tests only: die by SIGKILL at this named failpoint (src/failpoint.ts). Never set in production. */
  CRASH_AT: Type.Optional(Type.Union(FAILPOINTS.map((n) => Type.Literal(n)))),
  /**
   * `serve`: compile each route's validators and serializers on its first request (`lazy`, the
   * default: about 2 s less CPU per start, so an instance killed in a failover is back sooner, and
   * ~7 MB less idle memory: #33's idle bound) or all of them before listening (`compile`: the first
   * requests are not slowed, and a schema that cannot compile stops the start; the test suite
   * compiles every schema anyway, test/http/openapi.test.ts).
   */
  SCHEMAS_AT_START: Type.Union([Type.Literal('compile'), Type.Literal('lazy')], { default: 'lazy' }),
  /** Log one in every N cache hits answered in front of the framework, at info (0: none). */
  CACHE_HIT_LOG_EVERY: Type.Integer({ minimum: 0, default: 0 }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
});

export type RawConfig = Static<typeof ConfigSchema>;
export type Network = 'mainnet' | 'testnet4' | 'signet' | 'regtest';

export type Config = Omit<RawConfig, 'NETWORK' | 'DATABASE_URL' | 'AUTH_ALLOWED_ORIGINS' | 'AUTH_DOMAIN' | 'HOST' | 'SIGNER_DIR' | 'MARKET_WALLET_DIR'> & {
  MARKET_WALLET_DIR: string;
  NETWORK: Network;
  DATABASE_URL: string;
  SIGNER_DIR: string;
  AUTH_ALLOWED_ORIGINS: string[];
  AUTH_DOMAIN: string;
  HOST: string;
};

export class ConfigError extends Error {}

/** Parses the environment (or an override object); throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const keys = Object.keys(ConfigSchema.properties);
  const picked: Record<string, unknown> = {};
  for (const k of keys) {
    const v = env[k];
    if (v !== undefined && v !== '') picked[k] = v;
  }
  const withDefaults = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, picked));
  const errors = [...Value.Errors(ConfigSchema, withDefaults)];
  if (errors.length) {
    const lines = errors.map((e) => `  ${e.path.slice(1) || '(root)'}: ${e.message} (got ${JSON.stringify(e.value)})`);
    throw new ConfigError(`Invalid configuration:\n${[...new Set(lines)].join('\n')}`);
  }
  const raw = withDefaults as RawConfig;
  if (raw.CHAIN === 'bitcoin-core' && (!raw.BITCOIN_RPC_URL || !raw.COUNTERPARTY_API_URL)) {
    throw new ConfigError('Invalid configuration:\n  CHAIN=bitcoin-core needs BITCOIN_RPC_URL and COUNTERPARTY_API_URL');
  }
  if (raw.BITCOIN_ZMQ_HASHBLOCK && raw.CHAIN !== 'bitcoin-core') {
    throw new ConfigError('Invalid configuration:\n  BITCOIN_ZMQ_HASHBLOCK: Bitcoin Core\'s notifications need CHAIN=bitcoin-core (the devnet is read in process)');
  }
  const network: Network = raw.NETWORK ?? (raw.CHAIN === 'devnet' ? 'regtest' : 'mainnet');
  if (raw.CHAIN === 'devnet' && network !== 'regtest') {
    throw new ConfigError('Invalid configuration:\n  NETWORK: the devnet runs on regtest only');
  }
  // A platform fee output below dust makes every checkout non-standard (no node relays it).
  if ((raw.MARKET_FEE_BPS > 0 || raw.MARKET_FEE_MIN_SATS > 0) && raw.MARKET_FEE_MIN_SATS < 546) {
    throw new ConfigError('Invalid configuration:\n  MARKET_FEE_MIN_SATS: at least 546 (the highest dust limit) while a platform fee is charged, or set both MARKET_FEE_BPS and MARKET_FEE_MIN_SATS to 0');
  }
  if (raw.MARKET_FEE_ADDRESS && !decodeAddress(raw.MARKET_FEE_ADDRESS, network).ok) {
    throw new ConfigError(`Invalid configuration:\n  MARKET_FEE_ADDRESS: not a ${network} address`);
  }
  if (raw.CHAIN !== 'devnet' && !raw.MARKET_FEE_ADDRESS && (raw.MARKET_FEE_BPS > 0 || raw.MARKET_FEE_MIN_SATS > 0)) {
    throw new ConfigError('Invalid configuration:\n  MARKET_FEE_ADDRESS: required off the devnet while a platform fee is charged (MARKET_FEE_BPS or MARKET_FEE_MIN_SATS above 0)');
  }
  if (raw.DATABASE_READ_URL && !raw.DATABASE_URL?.startsWith('postgres')) throw new ConfigError('Invalid configuration:\n  DATABASE_READ_URL: a read replica needs a PostgreSQL DATABASE_URL');
  // A webhook endpoint behind the log's retention would miss events: it must be disabled first.
  if (raw.WEBHOOK_DISABLE_AFTER_HOURS >= raw.EVENT_LOG_RETENTION_DAYS * 24) {
    throw new ConfigError(`Invalid configuration:\n  WEBHOOK_DISABLE_AFTER_HOURS: below EVENT_LOG_RETENTION_DAYS × 24 (${raw.EVENT_LOG_RETENTION_DAYS * 24}), so a failing endpoint is disabled before the events it waits for are pruned`);
  }
  if (raw.SIGNER_URL && !raw.SIGNER_SECRET) throw new ConfigError('Invalid configuration:\n  SIGNER_SECRET: required with SIGNER_URL (the signer authenticates every request with it)');
  // Defaults derived from the listen port follow PORT, so a browser sign-in on another port works.
  const origins = (raw.AUTH_ALLOWED_ORIGINS ?? `http://localhost:${raw.PORT},http://127.0.0.1:${raw.PORT}`).split(',').map((o) => o.trim()).filter(Boolean);
  for (const o of origins) {
    if (!/^https?:\/\/[^/\s]+$/.test(o)) throw new ConfigError(`Invalid configuration:\n  AUTH_ALLOWED_ORIGINS: "${o}" is not an origin`);
  }
  return {
    ...raw,
    NETWORK: network,
    DATABASE_URL: raw.DATABASE_URL ?? `sqlite:${path.join(raw.DATA_DIR, 'market.sqlite')}`,
    SIGNER_DIR: raw.SIGNER_DIR ?? path.join(raw.DATA_DIR, 'signer'),
    MARKET_WALLET_DIR: raw.MARKET_WALLET_DIR ?? path.join(raw.DATA_DIR, 'market-wallet'),
    AUTH_ALLOWED_ORIGINS: origins,
    AUTH_DOMAIN: raw.AUTH_DOMAIN ?? `localhost:${raw.PORT}`,
    HOST: raw.HOST ?? (raw.CHAIN === 'devnet' ? '127.0.0.1' : '0.0.0.0'),
  };
}
