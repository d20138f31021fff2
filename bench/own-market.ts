/** A market of its own for one bench (a fresh SQLite store, loopback, one trusted proxy hop), so its setup neither meets nor spends another bench's budgets. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { bootstrap } from '../src/bootstrap.js';
import { buildApp } from '../src/app.js';
import type { Context } from '../src/context.js';
import { Agent, setGlobalDispatcher } from 'undici';

export async function ownMarket(env: Record<string, string> = {}): Promise<{ ctx: Context; api: string; close(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-own-'));
  const config = loadConfig({ DATABASE_URL: `sqlite:${path.join(dir, 'm.sqlite')}`, DATA_DIR: dir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', TRUST_PROXY_HOPS: '1', ...env });
  const boot = await bootstrap(config, { logger: pino({ level: 'silent' }) });
  const app = await buildApp(boot.ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ctx: boot.ctx,
    api: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: async () => {
      await app.close();
      await boot.close();
      fs.rmSync(dir, { recursive: true, force: true });
      // fetch's pool may keep a socket to this port, and the next market may be given the same
      // port: a POST on that dead socket fails with ECONNRESET (fetch retries only idempotent requests).
      setGlobalDispatcher(new Agent());
    },
  };
}
