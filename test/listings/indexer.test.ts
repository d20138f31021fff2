/** The listings watcher: attach verification, spent and expired listings, reorg rollback and withdrawal. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx, coinOf } from '../helpers/devnet.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

let n = 0;
const now = () => Math.floor(m.clock.now() / 1000);
const get = async (token: string, id: string) => (await m.call('GET', `/v1/listing-preflights/${id}`, token)).body.result;
const listingRow = (id: string) => m.ctx.store.db.selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const eventsOf = (address: string) => m.ctx.store.db.selectFrom('owner_events').selectAll().where('address', '=', address).execute();

/** A seller with one unit, a preflight at `price`, and (unless `list` is false) attach-and-list submitted. */
async function listed(opts: { price?: number; list?: boolean; ttl?: number } = {}) {
  const w = makeWallet('p2wpkh', `ix-seller-${++n}`);
  await m.fund(w, 100_000);
  const asset = await m.issue(w, '1');
  const token = await m.signIn(w);
  const r = await m.call('POST', '/v1/listing-preflights', token, { seller: w.address, asset, quantity_raw: '1', price_sats: opts.price ?? 50_000, idempotency_key: `ix-${n}` });
  const d = r.body.result;
  const attach = signPsbt(d.attach.psbt_hex, w, [0], SigHash.ALL);
  if (opts.list === false) {
    const s = await m.call('POST', `/v1/listing-preflights/${d.id}/attach`, token, { psbt_hex: attach });
    assert.equal(s.status, 200, JSON.stringify(s.body));
  } else {
    const listing = signPsbt(d.listing.psbt_hex, w, [0], SigHash.SINGLE_ANYONECANPAY);
    const s = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, token, { attach_psbt_hex: attach, listing_psbt_hex: listing, expires_at: now() + (opts.ttl ?? 86400) });
    assert.equal(s.status, 200, JSON.stringify(s.body));
  }
  return { w, asset, token, d };
}

void test('a listed asset UTXO spent elsewhere ends the listing invalid, records the event, wipes the signed half once the spend is final', async () => {
  const { w, token, d } = await listed();
  await m.mine();
  await m.sync();
  const done = await get(token, d.id);
  assert.equal(done.listing_status, 'active');
  const unit = coinOf(m.devnet, d.expected_txid, 0);
  const fee = await m.fund(w, 10_000);
  const away = makeWallet('p2wpkh', 'ix-elsewhere');
  const spend = buildTx([{ wallet: w, coin: unit }, { wallet: w, coin: fee }], [{ script: away.script, amount: 330n }, { script: w.script, amount: 8_000n }]);
  await m.devnet.bitcoin.broadcast(spend);
  await m.sync();
  assert.equal((await listingRow(done.listing_id)).state, 'active', 'a mempool spend changes nothing yet');
  await m.mine();
  await m.sync();
  const l = await listingRow(done.listing_id);
  assert.deepEqual([l.state, l.end_reason], ['ended', 'invalid']);
  assert.ok(l.signed_psbt, 'kept while the spend can still be reorged out');
  assert.equal(l.spent_height, (await m.devnet.bitcoin.getTip()).height);
  await m.mine();
  await m.sync();
  assert.ok((await listingRow(l.id)).signed_psbt, 'two confirmations: still kept');
  await m.mine();
  await m.sync();
  assert.equal((await listingRow(l.id)).signed_psbt, null, 'three confirmations: final, wiped');
  const ev = await eventsOf(w.address);
  assert.deepEqual(ev.map((e) => [e.kind, e.role, e.listing_id, e.status]), [['listing_invalidated', 'seller', l.id, 'ended']]);
  assert.deepEqual(JSON.parse(ev[0]!.data).asset_utxo, { txid: d.expected_txid, vout: 0 });
  const after = await get(token, d.id);
  assert.deepEqual([after.status, after.listing_status, after.listing_end_reason], ['completed', 'ended', 'invalid']);
});

void test('an attach that Counterparty finds invalid fails the draft and ends its listing', async () => {
  const w = makeWallet('p2wpkh', `ix-invalid-${++n}`);
  await m.fund(w, 100_000);
  const asset = await m.issue(w, '1');
  const token = await m.signIn(w);
  const d = (await m.call('POST', '/v1/listing-preflights', token, { seller: w.address, asset, quantity_raw: '1', price_sats: 9_000, idempotency_key: 'ix-invalid' })).body.result;
  // The unit leaves the address before our attach is parsed.
  await m.attachDirect(w, asset, '1');
  const s = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, token, {
    attach_psbt_hex: signPsbt(d.attach.psbt_hex, w, [0], SigHash.ALL),
    listing_psbt_hex: signPsbt(d.listing.psbt_hex, w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: now() + 3600,
  });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  await m.mine();
  await m.sync();
  const after = await get(token, d.id);
  assert.equal(after.status, 'failed');
  assert.match(after.last_error, /invalid: insufficient funds/);
  assert.deepEqual([after.listing_status, after.listing_end_reason], ['ended', 'invalid']);
});

void test('expiry: derived at read time, then materialized by the watcher with listing_expired', async () => {
  const { w, token, d } = await listed({ ttl: 600 });
  await m.mine();
  await m.sync();
  const active = await get(token, d.id);
  assert.equal(active.listing_status, 'active');
  m.clock.advance(601_000);
  const derived = await get(token, d.id);
  assert.deepEqual([derived.listing_status, derived.listing_end_reason], ['ended', 'expired']);
  assert.equal((await listingRow(active.listing_id)).state, 'active', 'not yet written');
  await m.mine();
  await m.sync();
  const l = await listingRow(active.listing_id);
  assert.deepEqual([l.state, l.end_reason, l.signed_psbt], ['ended', 'expired', null]);
  const [ev] = await eventsOf(w.address);
  assert.equal(ev?.kind, 'listing_expired');
  assert.equal(ev?.at, l.expires_at, 'an expiry carries its expires_at');
});

void test('reorg: a ready draft returns to awaiting_indexer; a completed one reads withdrawn (list_again) and its listing ends', async () => {
  const ready = await listed({ list: false });
  const done = await listed();
  await m.mine();
  await m.sync();
  assert.equal((await get(ready.token, ready.d.id)).status, 'ready');
  const before = await get(done.token, done.d.id);
  assert.deepEqual([before.status, before.listing_status], ['completed', 'active']);

  await m.devnet.reorg(1);
  await m.sync();
  const r1 = await get(ready.token, ready.d.id);
  assert.deepEqual([r1.status, r1.next_action, r1.bitcoin_confirmed_at, r1.fees.protocol.variable_until_confirmed], ['awaiting_indexer', 'sign_listing', null, true]);
  const w1 = await get(done.token, done.d.id);
  assert.deepEqual([w1.status, w1.next_action, w1.listing_status, w1.listing_end_reason], ['withdrawn', 'list_again', 'ended', 'invalid']);
  const l = await listingRow(w1.listing_id);
  assert.equal(l.signed_psbt, null);
  assert.deepEqual((await eventsOf(done.w.address)).map((e) => e.kind), ['listing_invalidated']);

  // The attaches come back from the mempool and confirm again.
  await m.mine();
  await m.sync();
  assert.equal((await get(ready.token, ready.d.id)).status, 'ready');
  const w2 = await get(done.token, done.d.id);
  assert.deepEqual([w2.status, w2.next_action], ['withdrawn', 'list_again'], 'withdrawn even after the attach is mined again');

  // Listing again: a new preflight reuses the unit.
  const again = await m.call('POST', '/v1/listing-preflights', done.token, { seller: done.w.address, asset: done.asset, quantity_raw: '1', price_sats: 45_000, idempotency_key: 'ix-again' });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.deepEqual([again.body.result.mode, again.body.result.status, again.body.result.asset_utxo.txid], ['reuse', 'ready', done.d.expected_txid]);
  const signed = signPsbt(again.body.result.listing.psbt_hex, done.w, [0], SigHash.SINGLE_ANYONECANPAY);
  const relisted = await m.call('POST', `/v1/listing-preflights/${again.body.result.id}/listing`, done.token, { psbt_hex: signed, expires_at: now() + 3600 });
  assert.equal(relisted.status, 200, JSON.stringify(relisted.body));
  assert.equal(relisted.body.result.state, 'active', 'a reused, verified unit is public at once');
  assert.equal((await get(done.token, again.body.result.id)).status, 'completed');
});

void test('an attach that also moves a balance into its asset UTXO is not verified: the unit listed would carry more than quantity_raw', async () => {
  // body.funding may be unconfirmed (to chain on a previous attach's change). An unconfirmed
  // output that an attach (or a move) credits shows no balance yet: Counterparty's balances are
  // confirmed state. Spent by our attach, that balance moves into our out 0 with the unit.
  const w = makeWallet('p2wpkh', `ix-moved-${++n}`);
  const coin = await m.fund(w, 100_000);
  const asset = await m.issue(w, '2');
  const token = await m.signIn(w);
  // Outside the market: 1 unit attached to a 30,000-sat output of the seller, still in the mempool.
  const outside = buildTx([{ wallet: w, coin }], (input0) => [
    { script: w.script, amount: 30_000n },
    { script: attachOutputScript({ input0Txid: input0, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
    { script: w.script, amount: coin.amount - 32_000n },
  ]);
  const x = await m.devnet.bitcoin.broadcast(outside);
  const b = await m.call('POST', '/v1/listing-preflights', token, { seller: w.address, asset, quantity_raw: '1', price_sats: 20_000, funding: [{ txid: x, vout: 0 }], idempotency_key: 'ix-moved' });
  assert.equal(b.status, 200, JSON.stringify(b.body));
  const d = b.body.result;
  const sb = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, token, {
    attach_psbt_hex: signPsbt(d.attach.psbt_hex, w, [0], SigHash.ALL),
    listing_psbt_hex: signPsbt(d.listing.psbt_hex, w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: now() + 3600,
  });
  assert.equal(sb.status, 200, JSON.stringify(sb.body));
  await m.mine();
  await m.sync();
  const held = await m.devnet.counterparty.getUtxoBalances(`${d.expected_txid}:0`);
  assert.deepEqual(held.map((h) => [h.asset, h.quantity_raw]), [[asset, '2']], 'the attach credited 1 and moved the other unit in');
  const after = await get(token, d.id);
  assert.equal(after.status, 'failed', JSON.stringify(after));
  assert.match(after.last_error, /holds more than the unit/);
  assert.deepEqual([after.listing_status, after.listing_end_reason], ['ended', 'invalid'], 'never public: a buyer would get 2 units for the price of 1');
  assert.equal((await listingRow(after.listing_id)).signed_psbt, null);
});
