/**
 * Both feeds on the devnet market: a listing made and delisted through the seller's real
 * routes with real keys, an expiry read before and after the indexer records it, and a sale's
 * life (pending, confirmed, reorged, confirmed again, dropped) in the owner and public feeds.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeWallet } from '../helpers/wallets.js';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { confirmFill, dropFill, insertFill, unconfirmFill } from '../helpers/feed-rows.js';
import { eventId } from '../../src/trade/event-rows.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const now = () => Math.floor(m.clock.now() / 1000);
/** Reads after a sync, which also flushes the response cache. */
const publicFeed = async (q = '') => {
  const r = await m.call('GET', `/v1/events?limit=100${q}`, null);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result as any[];
};
const ownerFeed = async (address: string, token: string) => {
  const r = await m.call('GET', `/v1/address/${address}/events?limit=100`, token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.deepEqual(Object.keys(r.body).sort(), ['next_cursor', 'result']);
  assert.ok(!JSON.stringify(r.body).includes('psbt'), 'no PSBT in the owner feed');
  return r.body.result as any[];
};
const about = (rows: any[], asset: string) => rows.filter((e) => e.asset === asset);

void test('a real listing: listed in the public feed, delisted through the route, listing_delisted in the owner feed', async () => {
  const s = await newSeller(m, 'p2wpkh', 'ev-flow', 1);
  const l = await listUnit(m, s, 20_000);
  const listedAt = now();
  await m.sync();
  const listed = about(await publicFeed(), s.asset);
  assert.deepEqual(listed, [
    { event_id: eventId('listed', l.id), kind: 'listed', at: listedAt, reason: null, asset: s.asset, asset_longname: null, collection: null, price_sats: 20_000, seller: s.w.address, buyer: null, bidder: null, txid: null, fill_kind: null, confirmed_at: null },
  ]);
  assert.deepEqual(await ownerFeed(s.w.address, s.token), [], 'listing is not an owner event');

  m.clock.advance(5_000);
  const d = await m.call('POST', `/v1/listings/${l.id}/delist`, s.token);
  assert.equal(d.status, 200, JSON.stringify(d.body));
  await m.sync();
  const feed = about(await publicFeed(), s.asset);
  assert.deepEqual(
    feed.map((e) => [e.kind, e.at, e.reason, e.event_id]),
    [
      ['delisted', listedAt + 5, 'owner', eventId('delisted', l.id)],
      ['listed', listedAt, null, eventId('listed', l.id)],
    ],
  );
  assert.deepEqual(about(await publicFeed('&kind=sales'), s.asset), []);
  assert.deepEqual(await ownerFeed(s.w.address, s.token), [
    {
      event_id: eventId('listing_delisted', l.id),
      kind: 'listing_delisted',
      at: listedAt + 5,
      role: 'seller',
      status: 'ended',
      asset: s.asset,
      price_sats: 20_000,
      txid: null,
      listing_id: l.id,
      asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout },
    },
  ]);
  const raw = JSON.stringify(await publicFeed());
  assert.ok(!raw.includes('psbt') && !raw.includes('70736274ff'), 'no PSBT in the public feed');
});

void test('expiry: read at once with the id and fields the indexer then stores; never both', async () => {
  const s = await newSeller(m, 'p2wpkh', 'ev-exp', 1);
  const l = await listUnit(m, s, 30_000, { ttl: 600 });
  await m.sync(); // the indexer catches up with the attach's block before the expiry passes
  m.clock.advance(601_000);
  await m.sync(); // no new block: the indexer has not ended it
  assert.equal((await m.ctx.store.db.selectFrom('listings').select('state').where('id', '=', l.id).executeTakeFirstOrThrow()).state, 'active');
  const pubBefore = about(await publicFeed(), s.asset);
  const ownBefore = await ownerFeed(s.w.address, s.token);
  assert.deepEqual(
    pubBefore.map((e) => [e.kind, e.at, e.reason, e.event_id]),
    [
      ['delisted', l.expires_at, 'expired', eventId('delisted', l.id)],
      ['listed', l.expires_at - 600, null, eventId('listed', l.id)],
    ],
  );
  assert.deepEqual(ownBefore, [
    {
      event_id: eventId('listing_expired', l.id),
      kind: 'listing_expired',
      at: l.expires_at,
      role: 'seller',
      status: 'ended',
      asset: s.asset,
      price_sats: 30_000,
      txid: null,
      listing_id: l.id,
      asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout },
      expires_at: l.expires_at,
    },
  ]);

  m.clock.advance(60_000);
  await m.mine();
  // Reads racing the indexer's write: each feed read is one statement (one snapshot), so every
  // reply holds the expiry exactly once, derived or stored.
  const racing = Array.from({ length: 8 }, () => m.call('GET', `/v1/address/${s.w.address}/events`, s.token));
  await m.sync(); // the watcher ends it `expired` and stores the owner event
  for (const r of await Promise.all(racing)) {
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.result, ownBefore);
  }
  const stored = await m.ctx.store.db.selectFrom('owner_events').selectAll().where('listing_id', '=', l.id).execute();
  assert.deepEqual(stored.map((e) => [e.event_id, e.kind, Number(e.at)]), [[eventId('listing_expired', l.id), 'listing_expired', l.expires_at]]);
  assert.deepEqual(about(await publicFeed(), s.asset), pubBefore, 'the same public events');
  assert.deepEqual(await ownerFeed(s.w.address, s.token), ownBefore, 'the stored row replaces the derived one');
});

void test('a sale: listing_filled, then sale_confirmed and purchase_confirmed; a reorg hides them until it confirms again; dropped fills vanish', async () => {
  const db = m.ctx.store.db;
  const s = await newSeller(m, 'p2wpkh', 'ev-sale', 2);
  const l = await listUnit(m, s, 40_000);
  const l2 = await listUnit(m, s, 45_000);
  const receiver = makeWallet('p2tr', 'ev-receiver');
  const payer = makeWallet('p2wpkh', 'ev-payer');
  const [rToken, pToken] = [await m.signIn(receiver), await m.signIn(payer)];
  // What the checkout writes: the listing reserved and a pending fill (delivery to another address than the payer).
  m.clock.advance(10_000);
  const t1 = now();
  await db.updateTable('listings').set({ state: 'reserved' }).where('id', '=', l.id).execute();
  const fill = await insertFill(db, { seller: s.w.address, buyer: receiver.address, payer: payer.address, asset: s.asset, ref_id: l.id, price_sats: 40_000, broadcast_at: t1 });
  await m.sync();

  const filled = {
    event_id: eventId('listing_filled', fill.id),
    kind: 'listing_filled',
    at: t1,
    role: 'seller',
    status: 'reserved',
    asset: s.asset,
    price_sats: 40_000,
    txid: fill.txid,
    listing_id: l.id,
    asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout },
  };
  assert.deepEqual(await ownerFeed(s.w.address, s.token), [filled]);
  assert.deepEqual(await ownerFeed(receiver.address, rToken), [], 'pending: no purchase_confirmed');
  const sales = async () => about(await publicFeed('&kind=sales'), s.asset);
  assert.deepEqual((await sales()).map((e) => [e.kind, e.at, e.buyer, e.txid, e.fill_kind, e.confirmed_at]), [['sale', t1, receiver.address, fill.txid, 'listing', null]]);

  // The block is seen a minute later.
  const t2 = t1 + 60;
  await confirmFill(db, fill.id, t2, 500);
  await db.updateTable('listings').set({ state: 'sold' }).where('id', '=', l.id).execute();
  await m.sync();
  const saleConfirmed = { event_id: eventId('sale_confirmed', fill.id), kind: 'sale_confirmed', at: t2, role: 'seller', status: 'confirmed', asset: s.asset, price_sats: 40_000, txid: fill.txid, listing_id: l.id, asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout } };
  const purchase = { ...saleConfirmed, event_id: eventId('purchase_confirmed', fill.id), kind: 'purchase_confirmed', role: 'buyer' };
  assert.deepEqual(await ownerFeed(s.w.address, s.token), [saleConfirmed, { ...filled, status: 'sold' }]);
  assert.deepEqual(await ownerFeed(receiver.address, rToken), [purchase], 'the purchase belongs to the delivery address');
  assert.deepEqual(await ownerFeed(payer.address, pToken), [], 'not to the payer');
  assert.equal((await sales())[0].confirmed_at, t2);
  assert.deepEqual(about(await publicFeed('&kind=listings'), s.asset).filter((e) => e.kind === 'delisted'), [], 'a sold listing has no delisted event');

  // A reorg disconnects the block: the confirmations disappear.
  await unconfirmFill(db, fill.id, t2 + 1);
  await m.sync();
  assert.deepEqual(await ownerFeed(receiver.address, rToken), []);
  assert.deepEqual((await ownerFeed(s.w.address, s.token)).map((e) => e.kind), ['listing_filled']);
  assert.equal((await sales())[0].confirmed_at, null);

  // Mined again: the same events come back at the new sighting.
  const t3 = t2 + 600;
  await confirmFill(db, fill.id, t3, 501);
  await m.sync();
  assert.deepEqual(await ownerFeed(receiver.address, rToken), [{ ...purchase, at: t3 }]);
  assert.deepEqual((await ownerFeed(s.w.address, s.token)).map((e) => [e.event_id, e.at]), [
    [saleConfirmed.event_id, t3],
    [filled.event_id, t1],
  ]);

  // A settlement that was rejected: its fill is dropped and leaves no trace in any feed.
  const lost = await insertFill(db, { seller: s.w.address, buyer: receiver.address, asset: s.asset, ref_id: l2.id, price_sats: 45_000, broadcast_at: t3 + 5 });
  await confirmFill(db, lost.id, t3 + 6, 502);
  await dropFill(db, lost.id, t3 + 7);
  await m.sync();
  const everything = JSON.stringify([await ownerFeed(s.w.address, s.token), await ownerFeed(receiver.address, rToken), await publicFeed()]);
  assert.ok(!everything.includes(lost.txid) && !everything.includes(eventId('sale', lost.id)), 'dropped fill invisible');
  const fills = await m.call('GET', `/v1/fills?asset=${s.asset}`, null);
  assert.deepEqual(fills.body.result.map((f: any) => f.txid), [fill.txid]);
});

void test('owner feed: 401 without a session or with an unknown one, 403 for another address, never cached', async () => {
  const a = makeWallet('p2wpkh', 'ev-auth-a');
  const b = makeWallet('p2wpkh', 'ev-auth-b');
  const ta = await m.signIn(a);
  const cases: Array<[string | null, string, number, string]> = [
    [null, a.address, 401, 'unauthenticated'],
    ['not-a-token', a.address, 401, 'unauthenticated'],
    [ta, b.address, 403, 'forbidden'],
  ];
  for (const [token, address, status, code] of cases) {
    const r = await m.call('GET', `/v1/address/${address}/events`, token);
    assert.deepEqual([r.status, r.body.code], [status, code], `${token} ${address}`);
    assert.equal(r.headers['cache-control'], 'no-store');
  }
  const own = await m.call('GET', `/v1/address/${a.address}/events`, ta);
  assert.deepEqual([own.status, own.body, own.headers['cache-control']], [200, { result: [], next_cursor: null }, 'no-store']);
});
