/**
 * The OpenAPI document exactly as the app serves it, built in process: the devnet on a temporary
 * SQLite store, default configuration, no demo seed, no server (one injected GET). Both
 * `npm run client:types` and the drift test read it from here, so they see the same document.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { bootstrap } from '../../src/bootstrap.js';
import { buildApp } from '../../src/app.js';
import type { OpenApiDocument } from './generate.js';

export async function servedDocument(): Promise<OpenApiDocument> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-client-types-'));
  try {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      SEED_DEMO: 'false',
      CHAIN: 'devnet',
      DATA_DIR: dir,
      SIGNER_DIR: path.join(dir, 'signer'),
      MARKET_WALLET_DIR: path.join(dir, 'wallet'),
    });
    const boot = await bootstrap(config);
    try {
      const app = await buildApp(boot.ctx);
      try {
        const r = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
        if (r.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${r.statusCode}`);
        return JSON.parse(r.body) as OpenApiDocument;
      } finally {
        await app.close();
      }
    } finally {
      await boot.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
