import type { Config } from '../config.js';

/**
 * The last lines of the start-up log, for a person: where the API and its docs
 * are and, on the devnet, the demo wallets with their (regtest, published) keys.
 */
export function startupBanner(config: Pick<Config, 'PORT' | 'HOST' | 'CHAIN' | 'NETWORK' | 'DEVNET_BLOCK_INTERVAL_MS'>, wallets: ReadonlyArray<{ label: string; address: string; wif: string }>): string {
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const base = `http://${host}:${config.PORT}`;
  const lines = [
    '',
    `  Counterparty collectibles marketplace API (${config.CHAIN}, ${config.NETWORK})`,
    `  Live page  ${base}/`,
    `  API        ${base}/v1/collections   (network and versions: ${base}/v1/meta)`,
    `  Docs       ${base}/docs   (OpenAPI: ${base}/v1/openapi.json)`,
    `  Health     ${base}/healthz   ${base}/readyz`,
  ];
  if (config.CHAIN === 'devnet') {
    lines.push(`  Devnet     ${base}/devnet/faucet, /devnet/mine, /devnet/sync; Bitcoin Core RPC at /devnet/rpc, Counterparty API v2 at /devnet/counterparty/v2`);
    const every = config.DEVNET_BLOCK_INTERVAL_MS;
    lines.push(
      every > 0
        ? `  Mining     a block every ${every / 1000} s (DEVNET_BLOCK_INTERVAL_MS=${every}; 0 mines only on POST /devnet/mine)`
        : '  Mining     on demand only: POST /devnet/mine (DEVNET_BLOCK_INTERVAL_MS=5000 mines every 5 s)',
    );
    if (wallets.length) {
      lines.push('  Demo wallets (regtest keys, published on purpose):');
      for (const w of wallets) lines.push(`    ${w.label.padEnd(6)} ${w.address}  WIF ${w.wif}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
