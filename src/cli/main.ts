import { ConfigError, loadConfig, type Config } from '../config.js';
import { sandboxDefaults } from './sandbox.js';

/**
 * CLI entry:
 *   serve                 API + indexer + recovery in one process (default)
 *   devnet [serve]        the devnet alone, speaking Bitcoin Core JSON-RPC and Counterparty API v2
 *   devnet <action> …     faucet|mine|assets|credit|reorg|sync|utxos against a running devnet
 *   catalog-import FILE   replace the curated catalogue
 *   signer                the market signer as its own process (SIGNER_DIR, SIGNER_SECRET, SIGNER_PORT)
 *   artist-edits [--artist KEY] [--since UNIX] [--limit N]   the artist profile edit record, JSON lines
 */
async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  let config: Config;
  try {
    config = loadConfig(command === 'serve' ? sandboxDefaults(process.env) : process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }

  switch (command) {
    case 'serve':
      return serve(config);
    case 'signer': {
      const { serveSigner } = await import('./signer.js');
      return serveSigner(config);
    }
    case 'devnet': {
      const { runDevnetCommand } = await import('./devnet.js');
      return runDevnetCommand(config, rest);
    }
    case 'catalog-import': {
      const file = rest[0];
      if (!file) throw new Error('usage: npm run catalog:import -- FILE.json');
      const { bootstrap } = await import('../bootstrap.js');
      const { importCatalogFile } = await import('../modules/market/catalog-import.js');
      const { ctx, close } = await bootstrap(config);
      try {
        const n = await importCatalogFile(ctx, file);
        process.stdout.write(`imported ${n.collections} collections, ${n.assets} assets, ${n.artists} artists\n`);
      } finally {
        await close();
      }
      return;
    }
    case 'artist-edits': {
      const { bootstrap } = await import('../bootstrap.js');
      const { artistEditsCommand } = await import('../modules/market/artist-edits-cli.js');
      const { ctx, close } = await bootstrap(config);
      try {
        for (const e of await artistEditsCommand(ctx, rest)) process.stdout.write(`${JSON.stringify(e)}\n`);
      } finally {
        await close();
      }
      return;
    }
    default:
      process.stderr.write(`unknown command ${command}; use serve, devnet, signer, catalog-import or artist-edits\n`);
      process.exit(2);
  }
}

/** How long a SIGTERM waits for requests in flight before closing their connections. */
const DRAIN_MS = 10_000;

async function serve(config: Config): Promise<void> {
  const { bootstrap } = await import('../bootstrap.js');
  const { buildApp } = await import('../app.js');
  const { startJobs } = await import('../jobs.js');
  // Interval mining starts once the demo is seeded (the seed mines its own blocks in order).
  const boot = await bootstrap({ ...config, DEVNET_BLOCK_INTERVAL_MS: 0 });
  const { ctx } = boot;
  // Versions, network, readiness and the UTXO source, one line each (docs/operating.md).
  const { checkChainAtStart } = await import('../chain/startup-check.js');
  try {
    await checkChainAtStart(ctx.chain, config.NETWORK, ctx.logger);
  } catch (e) {
    ctx.logger.fatal({ err: e }, (e as Error).message);
    await boot.close();
    process.exit(1);
  }
  const app = await buildApp(ctx);
  const jobs = await startJobs(ctx);
  if (ctx.devnet && config.SEED_DEMO) {
    const { seedDemoMarket } = await import('../demo/seed.js');
    await seedDemoMarket(ctx, ctx.devnet);
  }
  if (ctx.devnet && config.DEVNET_BLOCK_INTERVAL_MS > 0) ctx.devnet.startMining(config.DEVNET_BLOCK_INTERVAL_MS);
  // Every route's schemas compiled before the first request when the operator asks (see config.ts and http/lazy-schemas.ts).
  await app.ready();
  if (config.SCHEMAS_AT_START === 'compile') app.compileSchemas();
  await app.listen({ port: config.PORT, host: config.HOST });
  ctx.logger.info({ chain: config.CHAIN, network: config.NETWORK, store: ctx.store.dialect }, 'marketplace API listening');
  const { startupBanner } = await import('./banner.js');
  const wallets = ctx.devnet && config.SEED_DEMO ? (await import('../demo/wallets.js')).demoWallets() : [];
  if (config.LOG_LEVEL !== 'silent') process.stdout.write(startupBanner(config, wallets));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.logger.info({ signal }, 'shutting down');
    // Stop accepting and drain the requests in flight (a checkout mid-completion finishes), then
    // stop the jobs and give every leader role up: another instance takes over at once.
    const drained = app.close();
    // A request that never ends (a stream) must not hold the handover: cut what is left after a while.
    const cut = setTimeout(() => app.server.closeAllConnections(), DRAIN_MS);
    await drained;
    clearTimeout(cut);
    await jobs.stop();
    await boot.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
