import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../../src/config.js';
import { entryArgs } from '../../sim/processes.js';

test('defaults make npm start work with no setup', () => {
  const c = loadConfig({});
  assert.equal(c.PORT, 8080);
  assert.equal(c.CHAIN, 'devnet');
  assert.equal(c.NETWORK, 'regtest');
  assert.equal(c.DATABASE_URL, 'sqlite:data/market.sqlite');
  assert.equal(c.INDEXER_INTERVAL_MS, 120_000);
  assert.deepEqual(c.AUTH_ALLOWED_ORIGINS, ['http://localhost:8080', 'http://127.0.0.1:8080']);
  assert.equal(c.AUTH_DOMAIN, 'localhost:8080');
});

test('defaults derived from the port follow PORT; the devnet listens on loopback unless HOST says otherwise', () => {
  const c = loadConfig({ PORT: '18080' });
  assert.deepEqual(c.AUTH_ALLOWED_ORIGINS, ['http://localhost:18080', 'http://127.0.0.1:18080']);
  assert.equal(c.AUTH_DOMAIN, 'localhost:18080');
  assert.equal(c.HOST, '127.0.0.1', 'the devnet control routes are unauthenticated by design');
  assert.equal(loadConfig({ HOST: '0.0.0.0' }).HOST, '0.0.0.0');
  const core = { CHAIN: 'bitcoin-core', BITCOIN_RPC_URL: 'http://127.0.0.1:8332', COUNTERPARTY_API_URL: 'http://127.0.0.1:4000', MARKET_FEE_ADDRESS: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' };
  assert.equal(loadConfig(core).HOST, '0.0.0.0');
  assert.equal(loadConfig({ AUTH_DOMAIN: 'market.example', AUTH_ALLOWED_ORIGINS: 'https://market.example' }).AUTH_DOMAIN, 'market.example');
});

test('values are converted and checked', () => {
  const c = loadConfig({ PORT: '9000', DATABASE_URL: 'postgres://u@h/db', CHAIN: 'bitcoin-core', BITCOIN_RPC_URL: 'http://u:p@127.0.0.1:8332', COUNTERPARTY_API_URL: 'http://127.0.0.1:4000', MARKET_FEE_ADDRESS: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' });
  assert.equal(c.PORT, 9000);
  assert.equal(c.NETWORK, 'mainnet');
});

test('bad config names every bad variable', () => {
  assert.throws(() => loadConfig({ PORT: 'eighty', CHAIN: 'ethereum' }), (e: unknown) => e instanceof ConfigError && /PORT/.test(e.message) && /CHAIN/.test(e.message));
  assert.throws(() => loadConfig({ CHAIN: 'bitcoin-core' }), /BITCOIN_RPC_URL/);
  assert.throws(() => loadConfig({ NETWORK: 'mainnet' }), /devnet runs on regtest/);
  assert.throws(() => loadConfig({ BITCOIN_ZMQ_HASHBLOCK: 'tcp://127.0.0.1:28332' }), /BITCOIN_ZMQ_HASHBLOCK: Bitcoin Core's notifications need CHAIN=bitcoin-core/);
  const onCore = { CHAIN: 'bitcoin-core', BITCOIN_RPC_URL: 'http://127.0.0.1:8332', COUNTERPARTY_API_URL: 'http://127.0.0.1:4000', MARKET_FEE_ADDRESS: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' };
  assert.throws(() => loadConfig({ ...onCore, BITCOIN_ZMQ_HASHBLOCK: 'http://127.0.0.1:28332' }), /BITCOIN_ZMQ_HASHBLOCK/);
  assert.equal(loadConfig({ ...onCore, BITCOIN_ZMQ_HASHBLOCK: 'tcp://127.0.0.1:28332' }).BITCOIN_ZMQ_HASHBLOCK, 'tcp://127.0.0.1:28332');
  assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL/);
  assert.throws(() => loadConfig({ DATABASE_READ_URL: 'postgres://r@replica/db' }), /DATABASE_READ_URL: a read replica needs a PostgreSQL DATABASE_URL/);
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h/db', DATABASE_READ_URL: 'postgres://r@replica/db' }).DATABASE_READ_URL, 'postgres://r@replica/db');
  assert.throws(() => loadConfig({ AUTH_ALLOWED_ORIGINS: 'not an origin' }), /AUTH_ALLOWED_ORIGINS/);
  assert.throws(() => loadConfig({ WEBHOOK_DISABLE_AFTER_HOURS: '168', EVENT_LOG_RETENTION_DAYS: '7' }), /WEBHOOK_DISABLE_AFTER_HOURS: below EVENT_LOG_RETENTION_DAYS/);
  assert.equal(loadConfig({ WEBHOOK_DISABLE_AFTER_HOURS: '167', EVENT_LOG_RETENTION_DAYS: '7' }).WEBHOOK_DISABLE_AFTER_HOURS, 167);
  assert.throws(() => loadConfig({ MARKET_FEE_MIN_SATS: '100' }), /MARKET_FEE_MIN_SATS: at least 546/);
  assert.throws(() => loadConfig({ MARKET_FEE_MIN_SATS: '0' }), /MARKET_FEE_MIN_SATS/, 'a fee in bps alone can fall below dust on a small price');
  assert.equal(loadConfig({ MARKET_FEE_MIN_SATS: '0', MARKET_FEE_BPS: '0' }).MARKET_FEE_MIN_SATS, 0, 'no platform fee at all is fine');
  const core = { CHAIN: 'bitcoin-core', BITCOIN_RPC_URL: 'http://127.0.0.1:8332', COUNTERPARTY_API_URL: 'http://127.0.0.1:4000' };
  assert.throws(() => loadConfig(core), /MARKET_FEE_ADDRESS: required off the devnet/);
  assert.throws(() => loadConfig({ ...core, MARKET_FEE_ADDRESS: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080' }), /MARKET_FEE_ADDRESS: not a mainnet address/);
  assert.equal(loadConfig({ ...core, MARKET_FEE_BPS: '0', MARKET_FEE_MIN_SATS: '0' }).CHAIN, 'bitcoin-core');
});

test('the service exits non-zero with a clear message on bad config', () => {
  const r = spawnSync(process.execPath, [...entryArgs('src/cli/main.ts'), 'serve'], { env: { ...process.env, PORT: 'abc' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /Invalid configuration:\n {2}PORT/);
});
