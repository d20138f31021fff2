import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import type { ListingState } from '../../src/modules/listings/tables.js';
import { nowSeconds } from '../../src/clock.js';
import { catalog, ODD_CREDIT } from './fixture.js';

let t: TestApp;
let now: number;

/** A listing row as the seller side stores it; only asset, state, price and expiry matter to the catalogue reads. */
async function list(asset: string, price_sats: number, state: ListingState, expires_at: number) {
  const txid = crypto.randomBytes(32).toString('hex');
  await t.ctx.store.db
    .insertInto('listings')
    .values({
      id: crypto.randomUUID(),
      operation_id: crypto.randomUUID(),
      draft_id: crypto.randomUUID(),
      seller: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
      asset,
      quantity_raw: '1',
      utxo_txid: txid,
      utxo_vout: 0,
      utxo_outpoint: `${txid}:0`,
      utxo_value_sats: 330,
      price_sats,
      state,
      end_reason: null,
      signed_psbt: null,
      version: 1,
      expires_at,
      created_at: now,
      updated_at: now,
      activated_at: state === 'active' ? now : null,
      ended_at: null,
      protocol_subtype: 'plain',
    })
    .execute();
}

before(async () => {
  t = await testApp({ chain: unreachableChain() });
  await importCatalog(t.ctx.store.db, catalog);
  now = nowSeconds(t.clock);
  const hour = now + 3600;
  const year = now + 365 * 86400;
  await list('PEPEONE', 10_000, 'active', hour);
  await list('PEPEONE', 8_000, 'active', hour);
  await list('PEPEONE', 5_000, 'active', now - 1); // expired: derived at read time
  await list('PEPETWO', 6_000, 'pending', year);
  await list('PEPETHREE', 5_500, 'reserved', year);
  await list('PEPEFOUR', 5_100, 'sold', year);
  await list('CATTEN', 5_200, 'ended', year);
  await list('CATNINE', 9_000, 'active', year);
  await list('NONCOC', 20_000, 'active', year);
  await list('NOTINCATALOG', 5_000, 'active', year);
});
after(async () => t.close());

const get = async (url: string) => {
  const r = await t.app.inject({ method: 'GET', url });
  assert.equal(r.statusCode, 200, r.body);
  return JSON.parse(r.body) as Record<string, any>;
};
const figures = (r: { listed: number; floor_sats: number | null }) => [r.listed, r.floor_sats];

test('collections count only public fillable listings of their members, secondary memberships included', async () => {
  const rows = (await get('/v1/collections')).result;
  assert.deepEqual(
    rows.map((c: any) => [c.slug, ...figures(c)]),
    [['alpha', 3, 8_000], ['beta', 3, 8_000], ['gamma', 0, null]],
  );
  assert.deepEqual(figures((await get('/v1/collections/beta')).result), [3, 8_000]);
});

test('artists: listed and floor per credit, each listing once', async () => {
  const rows = (await get('/v1/artists?limit=100')).result;
  const by = Object.fromEntries(rows.map((r: any) => [r.name, figures(r)]));
  assert.deepEqual(by['Mondo Pepe'], [2, 8_000]);
  assert.deepEqual(by[ODD_CREDIT], [1, 20_000]);
  assert.deepEqual(by['9lives'], [1, 9_000]);
  assert.deepEqual(by['Twin Two'], [0, null]);
  const mondo = (await get('/v1/artists/mondo-pepe')).result;
  assert.deepEqual(figures(mondo), [2, 8_000]);
  assert.equal(mondo.assets, 4);
});

test('artist assets: listed=1 keeps assets with a public fillable listing', async () => {
  const listed = (await get('/v1/artists/mondo-pepe/assets?listed=1')).result;
  assert.deepEqual(listed.map((a: any) => [a.asset, ...figures(a)]), [['PEPEONE', 2, 8_000]]);
  const every = (await get('/v1/artists/mondo-pepe/assets')).result;
  assert.deepEqual(every.map((a: any) => [a.asset, ...figures(a)]), [
    ['PEPEFOUR', 0, null],
    ['PEPEONE', 2, 8_000],
    ['PEPETHREE', 0, null],
    ['PEPETWO', 0, null],
  ]);
});

test('expiry is read against the clock: past expires_at, a listing stops counting', async () => {
  t.clock.advance(3601 * 1000); // past both PEPEONE expiries and the 30 s cache
  assert.deepEqual(figures((await get('/v1/artists/mondo-pepe')).result), [0, null]);
  assert.deepEqual((await get('/v1/artists/mondo-pepe/assets?listed=1')).result, []);
  const alpha = (await get('/v1/collections')).result[0];
  assert.deepEqual([alpha.slug, ...figures(alpha)], ['alpha', 1, 9_000]);
});
