import type { Context } from '../context.js';
import type { DevnetControl } from '../chain/devnet-control.js';
import { getMeta, setMeta } from '../store/meta.js';
import { importCatalog, type CatalogFile } from '../modules/market/catalog-import.js';
import { seedDemoListings } from './seed-listings.js';
import { seedDemoSales } from './seed-sales.js';
import { seedDemoPolicyOffers } from './seed-policy-offers.js';
import { demoOwnerOf, demoSigners, demoWallets } from './wallets.js';
import demoCatalog from './catalog.json' with { type: 'json' };

export { demoSigners, demoWallets, type DemoSigner, type DemoWallet } from './wallets.js';

/**
 * Seeds a small believable market on an empty devnet store: the curated catalogue, demo
 * wallets with coins and XCP, the catalogue's assets issued to them, then live listings of some
 * of their units (seed-listings.ts), then a few confirmed purchases of those listings by the
 * other wallets (seed-sales.ts), then a collection offer (seed-policy-offers.ts). Each phase runs once (a marker in the store, so a restart does
 * nothing again, and a store seeded before a later phase existed gets it), never on a real
 * chain. True when anything was seeded.
 */
export async function seedDemoMarket(ctx: Context, devnet: DevnetControl): Promise<boolean> {
  const base = !(await getMeta(ctx.store.db, 'demo_seeded'));
  if (base) await seedBase(ctx, devnet);
  const listed = !(await getMeta(ctx.store.db, 'demo_listed'));
  if (listed) {
    const n = await seedDemoListings(ctx, devnet, demoSigners());
    await setMeta(ctx.store.db, 'demo_listed', new Date(ctx.clock.now()).toISOString());
    ctx.logger.info({ listings: n }, 'seeded the demo market listings');
  }
  const traded = !(await getMeta(ctx.store.db, 'demo_sales'));
  if (traded) {
    const n = await seedDemoSales(ctx, devnet, demoSigners());
    await setMeta(ctx.store.db, 'demo_sales', new Date(ctx.clock.now()).toISOString());
    ctx.logger.info({ units_sold: n }, 'seeded the demo market sales');
  }
  const bid = !(await getMeta(ctx.store.db, 'demo_policy_offers'));
  if (bid) {
    const n = await seedDemoPolicyOffers(ctx, devnet, demoSigners());
    await setMeta(ctx.store.db, 'demo_policy_offers', new Date(ctx.clock.now()).toISOString());
    ctx.logger.info({ alternatives: n }, 'seeded the demo collection offer');
  }
  return base || listed || traded || bid;
}

async function seedBase(ctx: Context, devnet: DevnetControl): Promise<void> {
  const existing = await ctx.store.db.selectFrom('collections').select('slug').limit(1).execute();
  if (existing.length === 0) await importCatalog(ctx.store.db, demoCatalog as CatalogFile);

  const wallets = demoSigners();
  await devnet.mine(101);
  for (const w of wallets) {
    for (let i = 0; i < 3; i++) await devnet.faucet(w.address, 2_000_000);
    await devnet.credit(w.address, 'XCP', '1000000000');
  }
  for (const a of (demoCatalog as CatalogFile).assets) {
    const owner = demoOwnerOf(a.asset, wallets);
    await devnet.issueAsset({ asset: a.asset, issuer: owner.address, quantity_raw: String(Math.min(a.max_supply_units ?? 10, 25)), divisible: false, description: `${a.asset} (demo)` });
  }
  await devnet.mine(1);
  await ctx.sync();
  await setMeta(ctx.store.db, 'demo_seeded', new Date(ctx.clock.now()).toISOString());
  ctx.logger.info({ wallets: demoWallets() }, 'seeded the demo market (regtest keys)');
}
