/** The owner feed over rows inserted directly: stored and derived events merged, paging through ties, refusals. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { makeWallet } from '../helpers/wallets.js';
import { openMarket, type Market } from '../helpers/market.js';
import { confirmFill, insertFill, insertListing } from '../helpers/feed-rows.js';
import { eventId } from '../../src/trade/event-rows.js';
import { recordEvent } from '../../src/trade/owner-events.js';

let m: Market;
const me = makeWallet('p2wpkh', 'of-me');
const other = makeWallet('p2tr', 'of-other');
let myToken: string;
let otherToken: string;
const T0 = 1_700_000_000;
const expected: Array<{ event_id: string; kind: string; at: number }> = [];

before(async () => {
  m = await openMarket();
  [myToken, otherToken] = [await m.signIn(me), await m.signIn(other)];
  const db = m.ctx.store.db;
  const future = Math.floor(m.clock.now() / 1000) + 86_400;
  const expect = (kind: string, subject: string, at: number) => expected.push({ event_id: eventId(kind, subject), kind, at });

  // Stored rows, four of them in one second.
  const store = async (kind: string, at: number, address = me.address) => {
    const listing = `lst_${crypto.randomBytes(6).toString('hex')}`;
    await recordEvent(db, { event_id: eventId(kind, listing), address, role: 'seller', kind, at, listing_id: listing, asset: 'PEPEONE', price_sats: 9_000, txid: null, status: 'ended', data: JSON.stringify({ end_reason: 'owner', asset_utxo: { txid: 'ab'.repeat(32), vout: 3 } }) });
    return listing;
  };
  for (const kind of ['listing_delisted', 'listing_invalidated', 'listing_delisted', 'listing_delisted']) expect(kind, await store(kind, T0 + 100), T0 + 100);
  expect('listing_delisted', await store('listing_delisted', T0 + 50), T0 + 50);
  await store('listing_delisted', T0 + 100, other.address); // someone else's
  await store('listing_filled', T0 + 100); // a stored copy of a derived kind is never shown twice

  // Expiring at read time: live listings past their expiry (one shares the stored rows' second).
  for (const [state, exp] of [['active', T0 + 100], ['active', T0 + 70], ['pending', T0 + 90]] as const) {
    const l = await insertListing(db, { seller: me.address, asset: 'CATTEN', state, activated_at: state === 'active' ? T0 : null, expires_at: exp });
    expect('listing_expired', l.id, exp);
  }
  await insertListing(db, { seller: me.address, asset: 'CATTEN', expires_at: future }); // live: no event
  await insertListing(db, { seller: me.address, asset: 'CATTEN', state: 'reserved', expires_at: T0 + 10 }); // claimed: it does not expire

  // Fills of my listings: three broadcast in the same second, one confirmed.
  const soldIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const l = await insertListing(db, { seller: me.address, asset: 'PEPETWO', state: 'reserved', expires_at: future });
    const f = await insertFill(db, { seller: me.address, buyer: other.address, asset: 'PEPETWO', ref_id: l.id, broadcast_at: T0 + 100 });
    expect('listing_filled', f.id, T0 + 100);
    soldIds.push(f.id);
  }
  await confirmFill(db, soldIds[0]!, T0 + 100, 700);
  expect('sale_confirmed', soldIds[0]!, T0 + 100);
  // My purchases: confirmed ones only, at confirmation; one of an offer.
  const bought = await insertFill(db, { seller: other.address, buyer: me.address, asset: 'ZETAONE', broadcast_at: T0 + 20 });
  await confirmFill(db, bought.id, T0 + 80, 690);
  expect('purchase_confirmed', bought.id, T0 + 80);
  const viaOffer = await insertFill(db, { seller: other.address, buyer: me.address, asset: 'ZETATWO', kind: 'offer', ref_id: 'off_abc', broadcast_at: T0 + 20 });
  await confirmFill(db, viaOffer.id, T0 + 80, 690);
  expect('purchase_confirmed', viaOffer.id, T0 + 80);
  await insertFill(db, { seller: other.address, buyer: me.address, asset: 'ZETAONE', broadcast_at: T0 + 30 }); // pending: nothing yet
  expected.sort((a, b) => b.at - a.at || (a.event_id < b.event_id ? 1 : -1));
});
after(async () => m.close());

const feed = (query: string, token: string | null = myToken, address = me.address) => m.call('GET', `/v1/address/${address}/events${query}`, token);

async function all(limit: number) {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const r = await feed(`?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.result.length <= limit);
    rows.push(...r.body.result);
    cursor = r.body.next_cursor;
  } while (cursor);
  return rows;
}

void test('stored and derived events merged, newest first by (at, event_id), every event once at every page size', async () => {
  for (const limit of [1, 2, 3, 5, 100]) {
    const rows = await all(limit);
    assert.deepEqual(rows.map((e) => ({ event_id: e.event_id, kind: e.kind, at: e.at })), expected, `limit ${limit}`);
  }
  const first = await feed('');
  assert.equal(first.body.result.length, expected.length, 'default limit 50 holds them all');
  assert.equal(first.body.next_cursor, null);
});

void test('fields per kind: stored extras pass through; offer purchases carry offer_id; expiries carry expires_at', async () => {
  const rows = await all(100);
  const stored = rows.find((e) => e.kind === 'listing_invalidated');
  assert.deepEqual(Object.keys(stored).sort(), ['asset', 'asset_utxo', 'at', 'event_id', 'kind', 'listing_id', 'price_sats', 'role', 'status', 'txid']);
  assert.deepEqual(stored.asset_utxo, { txid: 'ab'.repeat(32), vout: 3 });
  const offer = rows.find((e) => e.kind === 'purchase_confirmed' && e.asset === 'ZETATWO');
  assert.deepEqual({ ...offer, event_id: undefined, txid: undefined }, { event_id: undefined, txid: undefined, kind: 'purchase_confirmed', at: T0 + 80, role: 'buyer', status: 'confirmed', asset: 'ZETATWO', price_sats: 20_000, offer_id: 'off_abc' });
  const pendingExpiry = rows.find((e) => e.kind === 'listing_expired' && e.at === T0 + 90);
  assert.equal(pendingExpiry.expires_at, T0 + 90);
  assert.equal(pendingExpiry.status, 'ended');
  for (const e of rows.filter((x) => x.kind === 'listing_filled')) assert.equal(e.status, 'reserved');
});

void test('refusals: a cursor for another address, a forged position, bad limits', async () => {
  const first = await feed('?limit=2');
  const cursor = encodeURIComponent(first.body.next_cursor);
  const foreign = await feed(`?cursor=${cursor}`, otherToken, other.address);
  assert.deepEqual([foreign.status, foreign.body.code], [400, 'invalid_request']);
  const onPublic = await m.call('GET', `/v1/events?cursor=${cursor}`, null);
  assert.deepEqual([onPublic.status, onPublic.body.code], [400, 'invalid_request']);
  const forged = m.ctx.cursors.encode('/v1/address/:address/events', { address: me.address }, ['x', 1]);
  for (const q of [`?cursor=${encodeURIComponent(forged)}`, '?cursor=x.y', '?limit=0', '?limit=101']) {
    const r = await feed(q);
    assert.deepEqual([r.status, r.body.code, r.headers['cache-control']], [400, 'invalid_request', 'no-store'], q);
  }
  const bad = await feed('', myToken, 'tooshort');
  assert.equal(bad.status, 400);
});
