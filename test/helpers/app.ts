import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { bootstrap } from '../../src/bootstrap.js';
import { buildApp, type App } from '../../src/app.js';
import type { FastifyInstance } from 'fastify';
import { recordErrorAnswers } from '../conformance/observed.js';
import { ManualClock } from '../../src/clock.js';
import type { Context, DevnetHandle } from '../../src/context.js';
import type { Chain } from '../../src/chain/ports.js';
import type { Area } from '../../src/area.js';
import { createChain } from '../../src/chain/factory.js';
import { migrate } from '../../src/store/migrate.js';
import { backend, redisUrl, testStore, type TestStoreHandle } from './store.js';

export interface TestApp {
  app: App;
  ctx: Context;
  clock: ManualClock;
  config: Config;
  storeHandle: TestStoreHandle;
  close(): Promise<void>;
}

/**
 * The app through its front door on a fresh store of the backend under test.
 * On the PostgreSQL run with TEST_REDIS_URL set, the limiter and the response
 * cache live on Redis under a prefix of their own.
 *
 * `wrapChain` puts a wrapper between the market and the chain it would have opened (the
 * devnet): the market (journal, indexer, routes) sees the wrapped ports, the devnet handle
 * stays the real one. For fault injection, e.g. a broadcast that fails once.
 */
export async function testApp(
  opts: {
    env?: Record<string, string>;
    chain?: { chain: Chain; devnet?: DevnetHandle };
    wrapChain?: (chain: Chain) => Chain;
    clock?: ManualClock;
    beforeReady?: (app: App, ctx: Context) => void;
    /** The areas the service is made of (default: every area of modules/areas.ts). */
    areas?: readonly Area[];
    /** The service's logger (default: silent). */
    logger?: pino.Logger;
    /** The store (default: a fresh one, testStore()); the app's close cleans it up. */
    storeHandle?: TestStoreHandle;
  } = {},
): Promise<TestApp> {
  const storeHandle = opts.storeHandle ?? (await testStore());
  const clock = opts.clock ?? new ManualClock();
  const useRedis = backend === 'postgres' && redisUrl;
  const config = loadConfig({
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SEED_DEMO: 'false',
    // The in-process signer's own directory (keys, decisions): a fresh one per app, never ./data.
    SIGNER_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-signer-')),
    // The market wallet's key file (collection-offer anchors): fresh per app too.
    MARKET_WALLET_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-wallet-')),
    ...(useRedis ? { REDIS_URL: redisUrl, REDIS_PREFIX: `t${crypto.randomBytes(5).toString('hex')}:` } : {}),
    ...opts.env,
  });
  const logger = opts.logger ?? pino({ level: 'silent' });
  let chain = opts.chain;
  let closeChain = async () => {};
  if (!chain && opts.wrapChain) {
    await migrate(storeHandle.store);
    const made = await createChain(config, storeHandle.store, clock, logger);
    chain = { chain: opts.wrapChain(made.chain), ...(made.devnet ? { devnet: made.devnet } : {}) };
    closeChain = async () => made.devnet?.close?.();
  }
  const boot = await bootstrap(config, {
    store: storeHandle.store,
    clock,
    ...(chain ? { chain } : {}),
    logger,
    ...(opts.areas ? { areas: opts.areas } : {}),
  }).catch(async (e: unknown) => {
    // A boot meant to fail (a test of a refusal) must not leave the store open: the run would never exit.
    await closeChain();
    await storeHandle.cleanup();
    throw e;
  });
  const app = await buildApp(boot.ctx);
  // A whole-suite run records every failure answered, for test/conformance/coverage.check.ts.
  recordErrorAnswers(app as unknown as FastifyInstance);
  opts.beforeReady?.(app, boot.ctx);
  await app.ready();
  return {
    app,
    ctx: boot.ctx,
    clock,
    config,
    storeHandle,
    close: async () => {
      await app.close();
      await boot.close();
      await closeChain();
      await storeHandle.cleanup();
    },
  };
}

/** A GET through the front door, parsed: status, JSON body, headers and the raw text. */
export async function getJson(app: App, url: string): Promise<{ status: number; body: Record<string, any>; headers: Record<string, unknown>; raw: string }> {
  const r = await app.inject({ method: 'GET', url });
  return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, any>, headers: r.headers, raw: r.body };
}
