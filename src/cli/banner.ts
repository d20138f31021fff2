import type { Config } from '../config.js';

/**
 * The last lines of the start-up log, for a person: where the API and its docs
 * are and, on the devnet, the demo wallets with their (regtest, published) keys.
 */
export function startupBanner(config: Pick<Config, 'PORT' | 'HOST' | 'CHAIN' | 'NETWORK'>, wallets: ReadonlyArray<{ label: string; address: string; wif: string }>): string {
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const base = `http://${host}:${config.PORT}`;
  const lines = [
    '',
    `  Counterparty collectibles marketplace API (${config.CHAIN}, ${config.NETWORK})`,
    `  API        ${base}/v1/collections`,
    `  Docs       ${base}/docs   (OpenAPI: ${base}/v1/openapi.json)`,
    `  Health     ${base}/healthz   ${base}/readyz`,
  ];
  if (config.CHAIN === 'devnet') {
    lines.push(`  Devnet     ${base}/devnet/faucet, /devnet/mine, /devnet/sync; Bitcoin Core RPC at /devnet/rpc, Counterparty API v2 at /devnet/counterparty/v2`);
    if (wallets.length) {
      lines.push('  Demo wallets (regtest keys, published on purpose):');
      for (const w of wallets) lines.push(`    ${w.label.padEnd(6)} ${w.address}  WIF ${w.wif}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
