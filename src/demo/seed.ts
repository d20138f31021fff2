import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { p2tr, p2wpkh, WIF } from '@scure/btc-signer';
import type { Context } from '../context.js';
import type { DevnetControl } from '../chain/devnet-control.js';
import { networkParams } from '../bitcoin/networks.js';
import { getMeta, setMeta } from '../store/meta.js';
import { importCatalog, type CatalogFile } from '../modules/market/catalog-import.js';
import demoCatalog from './catalog.json' with { type: 'json' };

export interface DemoWallet {
  label: string;
  address: string;
  /** Regtest only: published so sandbox users can sign as the demo sellers. */
  wif: string;
}

/** Deterministic regtest wallets for the demo market (the same on every machine). */
export function demoWallets(): DemoWallet[] {
  const net = networkParams('regtest');
  return ['alice', 'bob', 'carol'].map((label, i) => {
    const key = sha256(new TextEncoder().encode(`counterparty-marketplace demo wallet ${label}`));
    const address = i === 1 ? p2tr(schnorr.getPublicKey(key), undefined, net).address! : p2wpkh(secp256k1.getPublicKey(key, true), net).address!;
    return { label, address, wif: WIF(net).encode(key) };
  });
}

/**
 * Seeds a small believable market on an empty devnet store: the curated
 * catalogue, demo wallets with coins and XCP, and the catalogue's assets issued
 * to them. Runs once (a marker in the store), never on a real chain.
 */
export async function seedDemoMarket(ctx: Context, devnet: DevnetControl): Promise<boolean> {
  if (await getMeta(ctx.store.db, 'demo_seeded')) return false;
  const existing = await ctx.store.db.selectFrom('collections').select('slug').limit(1).execute();
  if (existing.length === 0) await importCatalog(ctx.store.db, demoCatalog as CatalogFile);

  const wallets = demoWallets();
  await devnet.mine(101);
  for (const w of wallets) {
    for (let i = 0; i < 3; i++) await devnet.faucet(w.address, 2_000_000);
    await devnet.credit(w.address, 'XCP', '1000000000');
  }
  const assets = (demoCatalog as CatalogFile).assets;
  for (const [i, a] of assets.entries()) {
    const owner = wallets[i % wallets.length]!;
    await devnet.issueAsset({ asset: a.asset, issuer: owner.address, quantity_raw: String(Math.min(a.max_supply_units ?? 10, 25)), divisible: false, description: `${a.asset} (demo)` });
  }
  await devnet.mine(1);
  await ctx.sync();
  await setMeta(ctx.store.db, 'demo_seeded', new Date(ctx.clock.now()).toISOString());
  ctx.logger.info({ wallets: wallets.map((w) => ({ label: w.label, address: w.address, wif: w.wif })) }, 'seeded the demo market (regtest keys)');
  return true;
}
