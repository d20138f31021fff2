import type { Config } from '../config.js';
import { createLogger } from '../bootstrap.js';
import { openSigner } from '../signer/open.js';
import { signerApp } from '../signer/server.js';

/**
 * `npm run signer`: the market signer as its own process, over SIGNER_DIR (its key file, made on
 * first start, and its decision log), on SIGNER_HOST:SIGNER_PORT (loopback by default), every
 * request authenticated with SIGNER_SECRET. Point the API at it with SIGNER_URL and the same secret.
 */
export async function serveSigner(config: Config): Promise<void> {
  const logger = createLogger(config);
  if (!config.SIGNER_SECRET) {
    process.stderr.write('SIGNER_SECRET (at least 32 characters) is required to serve the market signer\n');
    process.exit(2);
  }
  const { signer, close } = openSigner(config.SIGNER_DIR, config.NETWORK);
  const app = signerApp(signer, config.SIGNER_SECRET);
  await app.listen({ port: config.SIGNER_PORT, host: config.SIGNER_HOST });
  const k = signer.info().current;
  logger.info({ dir: config.SIGNER_DIR, port: config.SIGNER_PORT, key_version: k.version, pubkey: k.pubkey }, 'market signer listening');
  const stop = async () => {
    await app.close();
    close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
