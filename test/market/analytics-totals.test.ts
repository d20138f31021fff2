/**
 * The analytics read's kept aggregates (migration 080) against a recount of the market after
 * every kind of change made to what they count: listings listed, repriced, sold, ended and
 * deleted; public offers placed, ended and turned exact (a target txid); collection offers
 * placed and ended; fills broadcast, confirmed, unconfirmed by a reorg, dropped, deleted. A seeded
 * run of such steps, each checked, and the read itself beside the read that counted the whole
 * market (analytics-recount.ts) at clocks that fall on and beside the window's hour edges and
 * past the expiry of some listings and offers, with more than 100 price levels on each side.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { backend, testStore, type TestStoreHandle } from '../helpers/store.js';
import type { Db } from '../../src/store/db.js';
import { AnalyticsService, WINDOW_DAYS } from '../../src/modules/market/analytics-service.js';
import { RecountedAnalytics } from './analytics-recount.js';
import { random } from '../helpers/seeded.js';
import { insertFill, insertListing } from './rows.js';

const handles: TestStoreHandle[] = [];
after(async () => {
  for (const h of handles) await h.cleanup();
});

const DAY = 86_400;
const HOUR = 3600;
const NOW = 1_800_000_000 - (1_800_000_000 % HOUR) + 1234;

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const sorted = (rows: unknown[][]) => rows.map((r) => r.map((v) => (typeof v === 'string' && !/^-?\d+$/.test(v) ? v : num(v)))).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
const grouped = <T>(rows: T[], key: (r: T) => string) => {
  const m = new Map<string, T[]>();
  for (const r of rows) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
  return [...m.entries()];
};

/** What the kept tables should hold, recounted in JS from the market's rows. */
async function recount(db: Db) {
  const listings = (await db.selectFrom('listings').selectAll().where('state', '=', 'active').execute()).map((l) => ({ ...l, price: num(l.price_sats) }));
  const offers = await db.selectFrom('offers').select(['slot_id as backing', 'bidder', 'price_sats']).where('state', '=', 'active').where('target_txid', 'is', null).execute();
  const policy = await db.selectFrom('policy_offers').select(['funding_set_id as backing', 'bidder', 'price_sats']).where('state', '=', 'active').execute();
  const bids = [...offers, ...policy].map((b) => ({ ...b, price: num(b.price_sats) }));
  const fills = (await db.selectFrom('fills').selectAll().where('state', '=', 'confirmed').execute()).map((f) => ({ ...f, at: num(f.broadcast_at), price: num(f.price_sats) }));
  const sellers = grouped(listings, (l) => l.seller).map(([s, ls]) => [s, ls.length, ls.reduce((a, l) => a + l.price, 0)]);
  const backings = grouped(bids, (b) => b.backing).map(([b, bs]) => [b, Math.max(...bs.map((x) => x.price))] as [string, number]);
  const last = (['buyer', 'seller', 'txid'] as const).flatMap((role) => grouped(fills, (f) => f[role]).map(([k, fs]) => [role, k, Math.max(...fs.map((f) => f.at))] as [string, string, number]));
  return {
    analytics_sellers: sorted(sellers),
    analytics_ask_levels: sorted(grouped(listings, (l) => String(l.price)).map(([p, ls]) => [p, ls.length])),
    analytics_backing_prices: sorted(grouped(bids, (b) => `${b.backing} ${b.price}`).map(([, bs]) => [bs[0]!.backing, bs[0]!.price, bs.length])),
    analytics_backings: sorted(backings),
    analytics_bid_levels: sorted(grouped(backings, (b) => String(b[1])).map(([p, bs]) => [p, bs.length])),
    analytics_bidders: sorted(grouped(bids, (b) => b.bidder).map(([b, bs]) => [b, bs.length])),
    analytics_counts: sorted([
      ['listings', listings.length],
      ['value', listings.reduce((a, l) => a + l.price, 0)],
      ['sellers', sellers.length],
      ['backings', backings.length],
      ['bidders', new Set(bids.map((b) => b.bidder)).size],
    ]),
    analytics_sales_hours: sorted(grouped(fills, (f) => `${Math.floor(f.at / HOUR)} ${f.kind}`).map(([, fs]) => [Math.floor(fs[0]!.at / HOUR), fs[0]!.kind, fs.reduce((a, f) => a + f.price, 0), fs.length])),
    analytics_sales_minutes: sorted(grouped(fills, (f) => `${Math.floor(f.at / 60)} ${f.kind}`).map(([, fs]) => [Math.floor(fs[0]!.at / 60), fs[0]!.kind, fs.reduce((a, f) => a + f.price, 0), fs.length])),
    analytics_sale_last: sorted(last),
    analytics_sale_last_hours: sorted(grouped(last, (l) => `${l[0]} ${Math.floor(l[2] / HOUR)}`).map(([, ls]) => [ls[0]![0], Math.floor(ls[0]![2] / HOUR), ls.length])),
    analytics_sale_last_minutes: sorted(grouped(last, (l) => `${l[0]} ${Math.floor(l[2] / 60)}`).map(([, ls]) => [ls[0]![0], Math.floor(ls[0]![2] / 60), ls.length])),
  };
}

async function same(db: Db, step: string) {
  const want = await recount(db);
  for (const [table, rows] of Object.entries(want)) {
    const got = sorted((await db.selectFrom(table as 'analytics_counts').selectAll().execute()).map((r) => Object.values(r)));
    assert.deepEqual(got, rows, `${table} after ${step}`);
  }
}

const SELLERS = ['bcrt1qseller0', 'bcrt1qseller1', 'bcrt1qseller2', 'bcrt1qseller3'];
const BIDDERS = ['bcrt1qbidder0', 'bcrt1qbidder1', 'bcrt1qbidder2'];
const BUYERS = ['bcrt1qbuyer0', 'bcrt1qbuyer1', 'bcrt1qbuyer2', 'bcrt1qbuyer3'];
const TXIDS = Array.from({ length: 6 }, (_, i) => String(i).repeat(64));
const SLOTS = Array.from({ length: 6 }, (_, i) => `fs_t${i}`);
const SETS = Array.from({ length: 4 }, (_, i) => `pfs_t${i}`);
let seq = 0;

function offerRow(p: { slot: string; bidder: string; price: number; state: string; target: string | null; expires_at: number }) {
  const id = `of_t${String(++seq).padStart(6, '0')}`;
  return {
    id,
    placement_id: 'pl_t',
    slot_id: p.slot,
    target_index: seq,
    bidder: p.bidder,
    bid_txid: 'e'.repeat(64),
    bid_vout: 0,
    price_sats: p.price,
    platform_fee_sats: 0,
    scope: 'asset',
    kind: 'asset',
    asset: 'TOTALA',
    level_key: id,
    target_txid: p.target,
    target_vout: p.target ? 0 : null,
    delivery_mode: 'detached',
    receive_address: p.bidder,
    state: p.state,
    expires_at: p.expires_at,
    created_at: NOW,
    updated_at: NOW,
  } as any;
}

function policyRow(p: { set: string; bidder: string; price: number; state: string; expires_at: number }) {
  const id = `po_t${String(++seq).padStart(6, '0')}`;
  return {
    id,
    funding_set_id: p.set,
    alt_index: seq,
    bidder: p.bidder,
    scope: 'collection',
    kind: 'collection',
    collection: 'tot-a',
    level_key: id,
    price_sats: p.price,
    presignature: '00',
    state: p.state,
    created_at: NOW,
    expires_at: p.expires_at,
    updated_at: NOW,
  } as any;
}

test('the kept analytics aggregates equal a recount after every change, and the read answers what the full count answered', async () => {
  const h = await testStore();
  handles.push(h);
  const db = h.store.db;
  const next = random(8001);
  const pick = <T>(xs: readonly T[]) => xs[next(xs.length)]!;
  /** An expiry mostly ahead, sometimes within the next days the reads look at, sometimes already past. */
  const expiry = () => NOW + [365 * DAY, 2 * DAY, -HOUR, 3 * HOUR][next(4)]!;

  // More than 100 price levels each side, some of them expiring before the reads' clocks.
  for (let i = 0; i < 200; i++) {
    await insertListing(db, { asset: `TOTL${i}`, price_sats: 1_000 + 100 * i, now: NOW, seller: pick(SELLERS), expires_at: expiry() });
    await db.insertInto('offers').values(offerRow({ slot: `fs_many${i}`, bidder: pick(BIDDERS), price: 40_000 - 100 * i, state: 'active', target: null, expires_at: expiry() })).execute();
  }
  await same(db, 'the first listings and offers');

  const listingIds: string[] = [];
  const offerIds: string[] = [];
  const policyIds: string[] = [];
  const fillIds: string[] = [];
  for (let step = 0; step < 250; step++) {
    const kind = next(12);
    let what = '';
    if (kind === 0) {
      what = 'a listing listed';
      const state = pick(['active', 'active', 'pending', 'reserved', 'sold', 'ended'] as const);
      listingIds.push(await insertListing(db, { asset: 'TOTALA', price_sats: 1_000 * (1 + next(5)), now: NOW, state, seller: pick(SELLERS), expires_at: expiry() }));
    } else if (kind === 1 && listingIds.length) {
      what = 'a listing changed state';
      await db.updateTable('listings').set({ state: pick(['active', 'reserved', 'sold', 'ended', 'exposed'] as const) }).where('id', '=', pick(listingIds)).execute();
    } else if (kind === 2 && listingIds.length) {
      what = 'a listing repriced or deleted';
      const id = pick(listingIds);
      if (next(2)) await db.updateTable('listings').set({ price_sats: 1_000 * (1 + next(5)), expires_at: expiry() }).where('id', '=', id).execute();
      else await db.deleteFrom('listings').where('id', '=', id).execute();
    } else if (kind === 3) {
      what = 'a public offer placed';
      const row = offerRow({ slot: pick(SLOTS), bidder: pick(BIDDERS), price: 1_000 * (1 + next(6)), state: pick(['active', 'active', 'filled']), target: next(4) ? null : 'f'.repeat(64), expires_at: expiry() });
      await db.insertInto('offers').values(row).execute();
      offerIds.push(row.id);
    } else if (kind === 4 && offerIds.length) {
      what = 'a public offer changed';
      const id = pick(offerIds);
      const k = next(4);
      if (k === 0) await db.updateTable('offers').set({ state: pick(['active', 'filled', 'cancelled', 'expired', 'consumed'] as const) }).where('id', '=', id).execute();
      else if (k === 1) await db.updateTable('offers').set({ target_txid: next(2) ? null : 'f'.repeat(64), price_sats: 1_000 * (1 + next(6)) }).where('id', '=', id).execute();
      else if (k === 2) await db.updateTable('offers').set({ slot_id: pick(SLOTS), bidder: pick(BIDDERS) }).where('id', '=', id).execute();
      else await db.deleteFrom('offers').where('id', '=', id).execute();
    } else if (kind === 5) {
      what = 'a collection offer placed';
      const row = policyRow({ set: pick(SETS), bidder: pick(BIDDERS), price: 1_000 * (1 + next(6)), state: pick(['active', 'active', 'cancelled']), expires_at: expiry() });
      await db.insertInto('policy_offers').values(row).execute();
      policyIds.push(row.id);
    } else if (kind === 6 && policyIds.length) {
      what = 'a collection offer changed';
      const id = pick(policyIds);
      if (next(3)) await db.updateTable('policy_offers').set({ state: pick(['active', 'filled', 'cancelled', 'expired', 'retired'] as const) }).where('id', '=', id).execute();
      else await db.updateTable('policy_offers').set({ price_sats: 1_000 * (1 + next(6)) }).where('id', '=', id).execute();
    } else if (kind === 7 || kind === 8) {
      what = 'a fill broadcast';
      // Across the window, its edges (exact hours, a second either side) and a little past now.
      const at = pick([NOW - next(32 * DAY), NOW - WINDOW_DAYS * DAY + pick([-1, 0, 1, 3000]), NOW - (NOW % HOUR) + pick([-1, 0, 1]), NOW + next(2 * HOUR)]);
      const f = await insertFill(db, {
        asset: 'TOTALA',
        price_sats: 1_000 * (1 + next(50)),
        broadcast_at: at,
        state: pick(['confirmed', 'confirmed', 'pending', 'dropped'] as const),
        txid: pick(TXIDS),
        kind: pick(['listing', 'offer'] as const),
        seller: pick(SELLERS),
        buyer: pick(BUYERS),
      });
      fillIds.push(f.id);
    } else if (kind === 9 && fillIds.length) {
      what = 'a fill confirmed, unconfirmed by a reorg or dropped';
      await db.updateTable('fills').set({ state: pick(['confirmed', 'pending', 'dropped'] as const) }).where('id', '=', pick(fillIds)).execute();
    } else if (kind === 10 && fillIds.length) {
      what = 'a fill moved or deleted';
      const id = pick(fillIds);
      if (next(2)) await db.updateTable('fills').set({ broadcast_at: NOW - next(31 * DAY), buyer: pick(BUYERS), txid: pick(TXIDS) }).where('id', '=', id).execute();
      else await db.deleteFrom('fills').where('id', '=', id).execute();
    } else if (kind === 11 && listingIds.length && fillIds.length && next(2)) {
      what = 'one transaction: a listing ended and listed again, a fill dropped and confirmed again, an offer placed and filled';
      const [id, fill] = [pick(listingIds), pick(fillIds)];
      const row = offerRow({ slot: pick(SLOTS), bidder: pick(BIDDERS), price: 7_000, state: 'active', target: null, expires_at: expiry() });
      await db.transaction().execute(async (tx) => {
        await tx.updateTable('listings').set({ state: 'ended' }).where('id', '=', id).execute();
        await tx.updateTable('listings').set({ state: 'active', price_sats: 9_000 }).where('id', '=', id).execute();
        await tx.updateTable('fills').set({ state: 'dropped' }).where('id', '=', fill).execute();
        await tx.updateTable('fills').set({ state: 'confirmed', broadcast_at: NOW - next(DAY) }).where('id', '=', fill).execute();
        await tx.insertInto('offers').values(row).execute();
        await tx.updateTable('offers').set({ state: 'filled' }).where('id', '=', row.id).execute();
      });
      offerIds.push(row.id);
    } else {
      what = 'a collection offer set ended whole';
      await db.updateTable('policy_offers').set({ state: 'expired' }).where('funding_set_id', '=', pick(SETS)).where('state', '=', 'active').execute();
    }
    await same(db, `step ${step}: ${what}`);
    if (step % 10 === 9) await sameRead(db, step);
  }
  const counted = await new RecountedAnalytics(db, () => NOW).snapshot();
  assert.ok(counted.sales.sales > 5 && counted.market.listings > 100 && counted.market.open_offers > 100 && counted.depth.length > 190, 'the run counted sales, offers and deep levels');
});

/** The read and the full count at clocks on and beside hour edges, and past some expiries. */
async function sameRead(db: Db, step: number) {
  for (const asOf of [NOW, NOW - (NOW % HOUR), NOW - (NOW % HOUR) - 1, NOW + 2 * HOUR + 1, NOW + 3 * DAY]) {
    const got = await new AnalyticsService(db, () => asOf).snapshot();
    const want = await new RecountedAnalytics(db, () => asOf).snapshot();
    assert.deepEqual(got, want, `the read at ${asOf - NOW} after step ${step}`);
  }
}

test('two transactions changing listings of the same sellers in opposite orders both commit (PostgreSQL: no deadlock on the kept lines)', { skip: backend !== 'postgres' && 'one writer at a time on SQLite' }, async () => {
  const h = await testStore();
  handles.push(h);
  const db = h.store.db;
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push(await insertListing(db, { asset: `TOTDL${i}`, price_sats: 1_000 * (i + 1), now: NOW, seller: SELLERS[i % 2]! }));
  // Each changes a listing of one seller, waits for the other to have changed one of the other seller, then changes a second.
  let firstDone = 0;
  const both = async () => {
    firstDone += 1;
    for (let i = 0; i < 50 && firstDone < 2; i++) await new Promise((r) => setTimeout(r, 20));
  };
  const run = (a: string, b: string) =>
    db.transaction().execute(async (tx) => {
      await tx.updateTable('listings').set({ state: 'ended' }).where('id', '=', a).execute();
      await both();
      await tx.updateTable('listings').set({ state: 'ended' }).where('id', '=', b).execute();
    });
  await Promise.all([run(ids[0]!, ids[1]!), run(ids[3]!, ids[2]!)]);
  assert.equal(firstDone, 2, 'both transactions made their first change before either made its second');
  await same(db, 'two crossing transactions');
  const counts = await db.selectFrom('analytics_counts').select(['name', 'n']).where('name', 'in', ['listings', 'sellers']).orderBy('name').execute();
  assert.deepEqual(counts.map((c) => [c.name, Number(c.n)]), [['listings', 0], ['sellers', 0]]);
});
