import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startupBanner } from '../../src/cli/banner.js';
import { loadConfig } from '../../src/config.js';
import { demoWallets } from '../../src/demo/wallets.js';

test('the start-up banner names the API, the docs and, on the devnet, the demo wallets and keys', () => {
  const devnet = startupBanner(loadConfig({ PORT: '18080' }), demoWallets());
  assert.match(devnet, /http:\/\/127\.0\.0\.1:18080\/docs/);
  assert.match(devnet, /http:\/\/127\.0\.0\.1:18080\/v1\/openapi\.json/);
  for (const w of demoWallets()) {
    assert.ok(devnet.includes(w.address), w.label);
    assert.ok(devnet.includes(w.wif), w.label);
  }
  const core = startupBanner(
    loadConfig({ CHAIN: 'bitcoin-core', BITCOIN_RPC_URL: 'http://127.0.0.1:8332', COUNTERPARTY_API_URL: 'http://127.0.0.1:4000', MARKET_FEE_ADDRESS: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' }),
    [],
  );
  assert.match(core, /http:\/\/localhost:8080\/docs/);
  assert.doesNotMatch(core, /WIF|devnet\/faucet/);
});

test('npm start on the devnet is a sandbox: a block every 5 s, said in the banner with the live page; the environment still wins', async () => {
  const { sandboxDefaults } = await import('../../src/cli/sandbox.js');
  const sandbox = loadConfig(sandboxDefaults({ PORT: '18080' }));
  assert.equal(sandbox.DEVNET_BLOCK_INTERVAL_MS, 5000);
  assert.equal(sandbox.INDEXER_INTERVAL_MS, 2000);
  const banner = startupBanner(sandbox, []);
  assert.match(banner, /Live page {2}http:\/\/127\.0\.0\.1:18080\/\n/);
  assert.match(banner, /a block every 5 s \(DEVNET_BLOCK_INTERVAL_MS=5000/);
  assert.match(banner, /\/v1\/meta/);
  const manual = loadConfig(sandboxDefaults({ DEVNET_BLOCK_INTERVAL_MS: '0' }));
  assert.equal(manual.DEVNET_BLOCK_INTERVAL_MS, 0);
  assert.match(startupBanner(manual, []), /on demand only: POST \/devnet\/mine/);
  assert.equal(loadConfig({}).DEVNET_BLOCK_INTERVAL_MS, 0, 'tests and other commands keep the schema default');
  const core = { CHAIN: 'bitcoin-core', BITCOIN_RPC_URL: 'http://127.0.0.1:8332', COUNTERPARTY_API_URL: 'http://127.0.0.1:4000' };
  assert.deepEqual(sandboxDefaults(core), core, 'nothing changes off the devnet');
});
