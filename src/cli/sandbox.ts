/**
 * `npm start` on the devnet is a sandbox: a block every 5 s (sales confirm, attaches verify, bids
 * become authorizable without anyone mining by hand) and the indexer following every 2 s. The
 * environment still wins (DEVNET_BLOCK_INTERVAL_MS=0: on demand only); the banner says which.
 * Only the serve command: tests and the standalone devnet keep the schema's defaults.
 */
export function sandboxDefaults(env: Record<string, string | undefined>): Record<string, string | undefined> {
  if ((env.CHAIN || 'devnet') !== 'devnet') return env;
  const set = (k: string, v: string) => (env[k] === undefined || env[k] === '' ? v : env[k]);
  return { ...env, DEVNET_BLOCK_INTERVAL_MS: set('DEVNET_BLOCK_INTERVAL_MS', '5000'), INDEXER_INTERVAL_MS: set('INDEXER_INTERVAL_MS', '2000') };
}
