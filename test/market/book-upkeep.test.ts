/**
 * What the book keeps ready (ask levels and their kept rows with their JSON text, migrations 016,
 * 025 and 027; the bid rows of 017) against the book computed from scratch out of `listings`,
 * `offers` and the catalogue, after random mixes of writes: listings listed, ended, sold,
 * reserved and repriced; offers placed, cancelled, filled and expired; a membership leaving and
 * coming back; the clock passing expiries. On the backend under test (TEST_BACKEND).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testStore, type TestStoreHandle } from '../helpers/store.js';
import { BOOK_LEVELS, BOOK_LISTINGS_PER_LEVEL, BookService, type OrderBook } from '../../src/modules/market/book-service.js';
import { BookStore } from '../../src/modules/market/book-store.js';
import { LISTING_COLUMNS, bookListingOf, type BookListing } from '../../src/modules/market/public-rows.js';
import type { Db } from '../../src/store/db.js';
import { levelKey } from '../../src/modules/offers/rules.js';
import { insertListing } from './rows.js';

let h: TestStoreHandle;
let db: Db;
const start = 1_800_000_000;
let clock = start;
const ASSETS = ['UPKONE', 'UPKTWO', 'UPKTHREE', 'UPKFOUR'];
const ASK_PRICES = [1_000, 2_000, 3_000, 4_000];
const BID_PRICES = [500, 600, 700, 800, 900, 950, 990, 999];
const SLOTS = 20;

before(async () => {
  h = await testStore();
  db = h.store.db;
  await db.insertInto('collections').values([{ slug: 'main', name: 'Main', description: null, sort_order: 1 }, { slug: 'side', name: 'Side', description: null, sort_order: 2 }]).execute();
  const member = (asset: string, slug: string) => ({ asset, collection_slug: slug, is_primary: slug === 'main' ? 1 : 0, artist: null, max_supply_units: 100, issued_year: 2016, series: 1, media_kind: 'image', protocol_subtype: null });
  await db.insertInto('catalog_assets').values([...ASSETS.map((a) => member(a, 'main')), member('UPKFOUR', 'side')]).execute();
  await db.insertInto('cp_assets').values({ asset: 'UPKTWO', asset_longname: 'A.two', divisible: 0, refreshed_height: 0, refreshed_at: 0, stale: 0 }).execute();
  await db
    .insertInto('offer_placements')
    .values({ id: 'pl_upk', bidder: 'bcrt1qupkeep', price_sats: 10_000, platform_fee_sats: 546, delivery_mode: 'detached', receive_address: 'bcrt1qupkeep', expires_at: start + 86_400, targets: '[]', funding_txid: null, request_sha256: 'upkeep', created_at: start })
    .execute();
  await db
    .insertInto('offer_slots')
    .values(Array.from({ length: SLOTS }, (_, i) => ({ id: `fs_upk${i}`, placement_id: 'pl_upk', bidder: `bcrt1qupk${i % 3}`, txid: `${String(i).padStart(2, '0')}`.repeat(32), vout: 0, outpoint: `${String(i).padStart(2, '0').repeat(32)}:0`, value_sats: 10_000, state: 'open' as const, spent_txid: null, spent_height: null, created_at: start, updated_at: start })))
    .execute();
});
after(async () => h.cleanup());

const bookOrder = (a: BookListing, b: BookListing) => a.price_sats - b.price_sats || a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The asks from scratch: live listings of member assets, grouped by price in JS. */
async function referenceAsks(slug: string, at: number) {
  const rows = await db
    .selectFrom('listings as l')
    .innerJoin('catalog_assets as ca', (j) => j.onRef('ca.asset', '=', 'l.asset').on('ca.collection_slug', '=', slug))
    .leftJoin('cp_assets as a', 'a.asset', 'l.asset')
    .select([...LISTING_COLUMNS, 'l.expires_at'])
    .where('l.state', '=', 'active')
    .where((eb) => eb.or([eb('l.expires_at', 'is', null), eb('l.expires_at', '>', at)]))
    .execute();
  const levels = new Map<number, BookListing[]>();
  for (const l of rows.map(bookListingOf).sort(bookOrder)) levels.set(l.price_sats, [...(levels.get(l.price_sats) ?? []), l]);
  return [...levels].slice(0, BOOK_LEVELS).map(([price_sats, all]) => ({ price_sats, depth: all.length, listings: all.slice(0, BOOK_LISTINGS_PER_LEVEL) }));
}

/** The bids from scratch: live public offers reaching the collection, grouped by (price, target) in JS. */
async function referenceBids(slug: string, at: number) {
  const members = (await db.selectFrom('catalog_assets').select('asset').where('collection_slug', '=', slug).execute()).map((r) => r.asset);
  const live = (await db.selectFrom('offers').selectAll().where('state', '=', 'active').where('target_txid', 'is', null).where('expires_at', '>', at).execute()).filter((o) =>
    o.scope === 'collection' ? o.collection === slug : members.includes(o.asset!) && (o.collection === null || o.collection === slug),
  );
  const levels = new Map<string, number>();
  for (const o of live) levels.set(`${o.price_sats} ${o.level_key}`, (levels.get(`${o.price_sats} ${o.level_key}`) ?? 0) + 1);
  const prices = live.map((o) => Number(o.price_sats));
  return {
    levels: [...levels].map(([k, n]) => `${k} ${n}`).sort(),
    offers: live.map((o) => `${o.id} ${o.price_sats} ${o.slot_id}`).sort(),
    best: prices.length ? Math.max(...prices) : null,
    topCollection: live.some((o) => o.kind !== 'asset') ? Math.max(...live.filter((o) => o.kind !== 'asset').map((o) => Number(o.price_sats))) : null,
  };
}

/** The book's bid side in the reference's terms (its order checked here, as collation may order level keys differently). */
function bidsOf(b: OrderBook) {
  assert.ok(b.offer_levels.every((l, i) => i === 0 || b.offer_levels[i - 1]!.price_sats >= l.price_sats), 'offer levels best first');
  assert.ok(b.offers.every((o, i) => i === 0 || b.offers[i - 1]!.price_sats >= o.price_sats), 'offers best first');
  return {
    levels: b.offer_levels.map((l) => `${l.price_sats} ${levelKey(l)} ${l.funded_slots}`).sort(),
    offers: b.offers.map((o) => `${o.id} ${o.price_sats} ${o.funding_slot_id}`).sort(),
    best: b.best_offer_sats,
    topCollection: b.top_collection_offer_sats,
  };
}

type Write =
  | { t: 'list'; asset: number; price: number; age: number; expiring: boolean }
  | { t: 'end'; pick: number; state: 'ended' | 'sold' | 'reserved' }
  | { t: 'reprice'; pick: number; price: number }
  | { t: 'offer'; kind: 0 | 1 | 2; asset: number; price: number; series: number; slot: number; expiring: boolean }
  | { t: 'offerEnd'; pick: number; state: 'cancelled' | 'filled' | 'expired' }
  | { t: 'member'; present: boolean }
  | { t: 'tick'; seconds: number };

// Listings weigh most, so levels grow past their kept rows (20) as the runs accumulate.
const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ t: fc.constant('list' as const), asset: fc.nat(3), price: fc.nat(3), age: fc.nat(40), expiring: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('end' as const), pick: fc.nat(), state: fc.constantFrom('ended' as const, 'sold' as const, 'reserved' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('reprice' as const), pick: fc.nat(), price: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('offer' as const), kind: fc.constantFrom(0 as const, 1 as const, 2 as const), asset: fc.nat(3), price: fc.nat(BID_PRICES.length - 1), series: fc.nat(1), slot: fc.nat(SLOTS - 1), expiring: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('offerEnd' as const), pick: fc.nat(), state: fc.constantFrom('cancelled' as const, 'filled' as const, 'expired' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('member' as const), present: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('tick' as const), seconds: fc.nat(120) }) },
);

let offers = 0;
let targetIndex = 0;

async function apply(w: Write): Promise<void> {
  const activeListing = async (pick: number) => {
    const ids = (await db.selectFrom('listings').select('id').where('state', '=', 'active').orderBy('id').execute()).map((r) => r.id);
    return ids.length ? ids[pick % ids.length]! : null;
  };
  switch (w.t) {
    case 'list':
      await insertListing(db, { asset: ASSETS[w.asset]!, price_sats: ASK_PRICES[w.price]!, now: clock, created_at: clock - w.age, expires_at: w.expiring ? clock + 60 : clock + 86_400 });
      return;
    case 'end': {
      const id = await activeListing(w.pick);
      if (id) await db.updateTable('listings').set({ state: w.state }).where('id', '=', id).execute();
      return;
    }
    case 'reprice': {
      const id = await activeListing(w.pick);
      if (id) await db.updateTable('listings').set({ price_sats: ASK_PRICES[w.price]! }).where('id', '=', id).execute();
      return;
    }
    case 'offer': {
      // Few enough that the book shows every one (at most 100 offers, 50 levels): the reference need not truncate.
      if ((await db.selectFrom('offers').select('id').where('state', '=', 'active').execute()).length >= 60) return;
      const kind = (['asset', 'collection', 'trait'] as const)[w.kind];
      const slot = `fs_upk${w.slot}`;
      const target = {
        scope: kind === 'asset' ? ('asset' as const) : ('collection' as const),
        kind,
        asset: kind === 'asset' ? ASSETS[w.asset]! : null,
        collection: kind === 'asset' ? null : w.asset % 2 ? 'main' : 'side',
        max_supply_units: kind === 'trait' ? 100 : null,
        min_supply_units: null,
        issued_year: null,
        series: kind === 'asset' ? null : w.series,
        artist: null,
      };
      await db
        .insertInto('offers')
        .values({
          id: `of_upk${String(++offers).padStart(5, '0')}`,
          placement_id: 'pl_upk',
          slot_id: slot,
          target_index: ++targetIndex,
          bidder: `bcrt1qupk${w.slot % 3}`,
          bid_txid: String(w.slot).padStart(2, '0').repeat(32),
          bid_vout: 0,
          price_sats: BID_PRICES[w.price]!,
          platform_fee_sats: 546,
          ...target,
          level_key: levelKey(target),
          target_txid: null,
          target_vout: null,
          delivery_mode: 'detached',
          receive_address: 'bcrt1qupkeep',
          state: 'active',
          end_reason: null,
          expires_at: w.expiring ? clock + 60 : clock + 86_400,
          created_at: clock - (offers % 7),
          updated_at: clock,
          ended_at: null,
        })
        .execute();
      return;
    }
    case 'offerEnd': {
      const ids = (await db.selectFrom('offers').select('id').where('state', '=', 'active').orderBy('id').execute()).map((r) => r.id);
      if (ids.length) await db.updateTable('offers').set({ state: w.state, ended_at: clock }).where('id', '=', ids[w.pick % ids.length]!).execute();
      return;
    }
    case 'member': {
      const there = await db.selectFrom('catalog_assets').select('asset').where('asset', '=', 'UPKTHREE').where('collection_slug', '=', 'main').executeTakeFirst();
      if (there && !w.present) await db.deleteFrom('catalog_assets').where('asset', '=', 'UPKTHREE').where('collection_slug', '=', 'main').execute();
      if (!there && w.present)
        await db.insertInto('catalog_assets').values({ asset: 'UPKTHREE', collection_slug: 'main', is_primary: 1, artist: null, max_supply_units: 100, issued_year: 2016, series: 1, media_kind: 'video', protocol_subtype: null }).execute();
      return;
    }
    case 'tick':
      clock += w.seconds;
      return;
  }
}

test('the kept levels, kept rows and bid rows equal the book computed from scratch after random writes', async () => {
  const store = new BookStore(db);
  const kept = new BookService(store, () => clock);
  const perLevel = new BookService(store, () => clock, false);
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(write, { minLength: 15, maxLength: 40 }), async (writes) => {
      for (const w of writes) await apply(w);
      for (const slug of ['main', 'side']) {
        const b = await kept.book(slug);
        assert.deepEqual(b.asks, await referenceAsks(slug, clock), `${slug}: asks`);
        assert.deepEqual(bidsOf(b), await referenceBids(slug, clock), `${slug}: bids`);
        assert.deepEqual(await perLevel.book(slug), b, `${slug}: both listing plans`);
        checked++;
      }
    }),
    { numRuns: 25 },
  );
  // The writes reached what is checked: deep levels (past the kept rows) and live offers on both sides.
  const deepest = await db.selectFrom('book_ask_levels').select((eb) => eb.fn.max('depth').as('d')).executeTakeFirstOrThrow();
  assert.ok(Number(deepest.d) > 20, `a level deeper than its kept rows (deepest ${deepest.d})`);
  assert.ok((await db.selectFrom('book_bids').select('offer_id').execute()).length > 0, 'live bids');
  assert.equal(checked, 50);
});
