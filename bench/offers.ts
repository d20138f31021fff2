/**
 * The bid side, measured:
 * - placement of 20 funding slots × 50 targets (1,000 offer rows) over HTTP, from a relayed
 *   funding transaction (devnet, real keys);
 * - the uncached book of a collection with 10,000 listings and 10,000 offers over 2,000 slots;
 * - an exact-offer accept with a CPFP child end to end over HTTP (verify both signatures and
 *   the child, claim, journal, submit the package to the devnet).
 */
import crypto from 'node:crypto';
import { hex } from '@scure/base';
import { sql, SqliteAdapter } from 'kysely';
import { SigHash, Transaction } from '@scure/btc-signer';
import type { Context } from '../src/context.js';
import type { Db } from '../src/store/db.js';
import type { Devnet } from '../src/chain/devnet/devnet.js';
import { READ_TX_OPTS } from '../src/bitcoin/transaction.js';
import { attachFreshUnit } from './units.js';
import { BookService } from '../src/modules/market/book-service.js';
import { BookStore } from '../src/modules/market/book-store.js';
import { signPsbt } from '../test/helpers/market.js';
import { makeWallet, signMessageBip322, type TestWallet } from '../test/helpers/wallets.js';
import { seedBook } from './book-seed.js';
import { time, type Timing } from './book.js';

type Json = Record<string, any>;

/** 10,000 live offers over 2,000 slots of one placement: asset, collection and trait offers on the collection. */
export async function seedOffers(db: Db, opts: { slug: string; offers: number; slots: number; assets: string[]; now: number }): Promise<void> {
  await db
    .insertInto('offer_placements')
    .values({ id: 'pl_bench', bidder: 'bcrt1qbench', price_sats: 10_000, platform_fee_sats: 546, delivery_mode: 'detached', receive_address: 'bcrt1qbench', expires_at: opts.now + 86_400, targets: '[]', funding_txid: null, request_sha256: 'bench', created_at: opts.now })
    .execute();
  const slots = Array.from({ length: opts.slots }, (_, i) => {
    const txid = crypto.createHash('sha256').update(`slot-${i}`).digest('hex');
    return { id: `fs_bench${i}`, placement_id: 'pl_bench', bidder: `bcrt1qbidder${i % 50}`, txid, vout: 0, outpoint: `${txid}:0`, value_sats: 10_000, state: 'open' as const, spent_txid: null, spent_height: null, created_at: opts.now, updated_at: opts.now };
  });
  for (let i = 0; i < slots.length; i += 500) await db.insertInto('offer_slots').values(slots.slice(i, i + 500)).execute();
  const per = Math.ceil(opts.offers / opts.slots);
  const rows = [];
  for (let i = 0; i < opts.offers; i++) {
    const slot = slots[Math.floor(i / per) % slots.length]!;
    const kind = i % 3 === 0 ? 'asset' : i % 3 === 1 ? 'collection' : 'trait';
    rows.push({
      id: `of_bench${String(i).padStart(6, '0')}`,
      placement_id: 'pl_bench',
      slot_id: slot.id,
      target_index: i % per,
      bidder: slot.bidder,
      bid_txid: slot.txid,
      bid_vout: 0,
      price_sats: 5_000 + (i % 400) * 100,
      platform_fee_sats: 546,
      scope: kind === 'asset' ? ('asset' as const) : ('collection' as const),
      kind: kind as 'asset' | 'collection' | 'trait',
      asset: kind === 'asset' ? opts.assets[i % opts.assets.length]! : null,
      collection: kind === 'asset' ? null : opts.slug,
      max_supply_units: kind === 'trait' ? 100 + (i % 500) : null,
      min_supply_units: null,
      issued_year: null,
      series: null,
      artist: null,
      level_key: JSON.stringify([kind, i % 7]),
      target_txid: null,
      target_vout: null,
      delivery_mode: 'detached' as const,
      receive_address: slot.bidder,
      state: 'active' as const,
      end_reason: null,
      expires_at: opts.now + 86_400,
      created_at: opts.now - (i % 1000),
      updated_at: opts.now,
      ended_at: null,
    });
  }
  for (let i = 0; i < rows.length; i += 300) await db.insertInto('offers').values(rows.slice(i, i + 300)).execute();
  // PostgreSQL: as autovacuum leaves a live table (book-seed.ts says why).
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
    for (const t of ['offer_slots', 'offers', 'book_bids']) await sql.raw(`VACUUM ANALYZE ${t}`).execute(db);
  }
}

/** The uncached book of 10,000 listings and 10,000 offers (2,000 slots), in process. */
export async function offerBookTiming(db: Db, runs = 200): Promise<Timing> {
  const now = Math.floor(Date.now() / 1000);
  await seedBook(db, { slug: 'bench-bids', listings: 10_000, assets: 1_000, levels: 50, now, prefix: 'Q' });
  const assets = (await db.selectFrom('catalog_assets').select('asset').where('collection_slug', '=', 'bench-bids').execute()).map((r) => r.asset);
  await seedOffers(db, { slug: 'bench-bids', offers: 10_000, slots: 2_000, assets, now });
  const service = new BookService(new BookStore(db), () => Math.floor(Date.now() / 1000));
  const t = await time('book: 10,000 listings + 10,000 offers (2,000 slots), uncached', runs, () => service.book('bench-bids'));
  return t;
}

function api(base: string) {
  return async (method: 'GET' | 'POST', path: string, body?: unknown, token?: string) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { 'x-session-token': token } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const out = (await r.json()) as Json;
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(out)}`);
    return out.result as Json;
  };
}

const finalize = (psbtHex: string) => {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  tx.finalize();
  return hex.encode(tx.extract());
};

export interface BidBench {
  placement_1000_ms: number;
  accept_cpfp_ms: number;
}

/** Placement of 20 slots × 50 targets, and an accept with a CPFP child, over HTTP with real keys. */
export async function bidFlowBench(ctx: Context, base: string): Promise<BidBench> {
  const devnet = ctx.devnet as unknown as Devnet;
  const call = api(base);
  const signIn = async (w: TestWallet) => {
    const c = await call('POST', '/v1/auth/challenge', { address: w.address });
    return (await call('POST', '/v1/auth/verify', { address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message as string) })).token as string;
  };
  const bidder = makeWallet('p2wpkh', 'bench-bidder');
  const seller = makeWallet('p2wpkh', 'bench-offer-seller');
  await devnet.faucet(bidder.address, 2_000_000);
  await devnet.faucet(bidder.address, 2_000_000);
  const { asset, txid: unitTxid } = await attachFreshUnit(devnet, seller);
  const unit = { txid: unitTxid, vout: 0 };
  await ctx.store.db.insertInto('collections').values({ slug: 'bench-placement', name: 'Bench placement', description: null, sort_order: 2000 }).execute();
  await ctx.store.db.insertInto('catalog_assets').values({ asset, collection_slug: 'bench-placement', is_primary: 1, artist: null, max_supply_units: 10, issued_year: 2016, series: 1, media_kind: 'image', protocol_subtype: null }).execute();
  await devnet.mine(3);
  await ctx.sync();
  const [bt, st] = [await signIn(bidder), await signIn(seller)];

  const fund = await call('POST', '/v1/offer-funding', { price_sats: 30_000, slots: 20, fee_rate: 2 }, bt);
  const raw = finalize(signPsbt(fund.psbt_hex as string, bidder, fund.inputs_to_sign as number[], SigHash.ALL));
  const targets = [{ scope: 'asset', asset }, ...Array.from({ length: 49 }, (_, i) => ({ scope: 'collection', collection: 'bench-placement', series: i }))];
  const t0 = performance.now();
  const placed = await call('POST', '/v1/funded-offers', { funding_tx_hex: raw, bids: fund.bids, targets, expires_at: Math.floor(Date.now() / 1000) + 86_400 }, bt);
  const placementMs = performance.now() - t0;
  if (placed.offer_count !== 1_000) throw new Error(`placed ${placed.offer_count} offers`);
  await devnet.mine(1);
  await ctx.sync();

  const offerId = placed.funding_slots[0].offer_ids[0] as string;
  const [auth] = (await call('POST', `/v1/offers/${offerId}/exact-authorizations`, { outpoints: [unit], fee_rate: 1 }, bt)) as Json[];
  await call('POST', `/v1/exact-offer-authorizations/${auth!.authorization_id}/bidder-psbt`, { psbt_hex: signPsbt(auth!.psbt_hex as string, bidder, [0], SigHash.ALL) }, bt);
  const fees = devnet.feeEstimates;
  devnet.feeEstimates = { ...fees, half_hour: 8 };
  try {
    const pf = await call('POST', `/v1/exact-offer-authorizations/${auth!.authorization_id}/accept-preflight`, {}, st);
    if (!pf.requires_cpfp) throw new Error('the bench expected a CPFP child');
    const body = { psbt_hex: signPsbt(pf.psbt_hex as string, seller, [1], SigHash.ALL), cpfp_psbt_hex: signPsbt(pf.cpfp.psbt_hex as string, seller, [0], SigHash.ALL) };
    const t1 = performance.now();
    await call('POST', `/v1/exact-offer-authorizations/${auth!.authorization_id}/accept`, body, st);
    return { placement_1000_ms: round(placementMs), accept_cpfp_ms: round(performance.now() - t1) };
  } finally {
    devnet.feeEstimates = fees;
  }
}

const round = (x: number) => Math.round(x * 100) / 100;
