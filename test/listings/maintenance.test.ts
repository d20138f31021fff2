/** Reprice, delist, the listings batch, draft price and discard, and the seller's draft list. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';
import { editPsbt, openMarket, signPsbt, type Market } from '../helpers/market.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { buildListingPsbt } from '../../src/modules/listings/templates.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

let n = 0;
const now = () => Math.floor(m.clock.now() / 1000);
const row = (id: string) => m.ctx.store.db.selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

async function sellerWith(units: number) {
  const w = makeWallet('p2wpkh', `mt-seller-${++n}`);
  await m.fund(w, 50_000);
  const asset = await m.issue(w, String(units));
  return { w, asset, token: await m.signIn(w) };
}

/** A unit attached outside the market, listed through a reuse preflight: active at once. */
async function listUnit(s: { w: TestWallet; asset: string; token: string }, price: number) {
  const at = await m.attachDirect(s.w, s.asset, '1');
  const pf = await m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: at, price_sats: price, idempotency_key: `mt-${++n}` });
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  const l = await m.call('POST', `/v1/listing-preflights/${pf.body.result.id}/listing`, s.token, {
    psbt_hex: signPsbt(pf.body.result.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: now() + 86400,
  });
  assert.equal(l.status, 200, JSON.stringify(l.body));
  assert.equal(l.body.result.state, 'active');
  return { ...l.body.result, draft: pf.body.result } as { id: string; utxo_txid: string; utxo_vout: number; price_sats: number; draft: any };
}

const repriceHalf = (s: { w: TestWallet }, l: { utxo_txid: string; utxo_vout: number }, price: number, sighash = SigHash.SINGLE_ANYONECANPAY) =>
  signPsbt(buildListingPsbt({ txid: l.utxo_txid, vout: l.utxo_vout, utxoValueSats: 330, sellerScript: s.w.script, priceSats: price }), s.w, [0], sighash);

void test('reprice: a verified new half overwrites the stored one and bumps version; refusals change nothing', async () => {
  const s = await sellerWith(2);
  const other = await sellerWith(1);
  const l = await listUnit(s, 20_000);
  const l2 = await listUnit(s, 20_000);
  const half = repriceHalf(s, l, 25_000);
  const r = await m.call('POST', `/v1/listings/${l.id}/reprice`, s.token, { psbt_hex: half });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.result, { id: l.id, price_sats: 25_000, version: 2 });
  const stored = await row(l.id);
  assert.deepEqual([stored.price_sats, stored.signed_psbt, stored.version], [25_000, half, 2]);
  const d = (await m.call('GET', `/v1/listing-preflights/${l.draft.id}`, s.token)).body.result;
  assert.equal(d.listed_price_sats, 25_000);

  const cases: Array<[string, string, string, number, string]> = [
    ['signed ALL', l.id, repriceHalf(s, l, 26_000, SigHash.ALL), 422, 'signature_invalid'],
    ['for another outpoint', l.id, repriceHalf(s, l2, 26_000), 422, 'template_mismatch'],
    ['with an extra output', l.id, signPsbt(editPsbt(buildListingPsbt({ txid: l.utxo_txid, vout: l.utxo_vout, utxoValueSats: 330, sellerScript: s.w.script, priceSats: 26_000 }), (tx) => tx.addOutput({ script: other.w.script, amount: 1_000n })), s.w, [0], SigHash.SINGLE_ANYONECANPAY), 422, 'template_mismatch'],
    ['paying someone else', l.id, signPsbt(editPsbt(buildListingPsbt({ txid: l.utxo_txid, vout: l.utxo_vout, utxoValueSats: 330, sellerScript: s.w.script, priceSats: 26_000 }), (tx) => tx.updateOutput(0, { script: other.w.script })), s.w, [0], SigHash.SINGLE_ANYONECANPAY), 422, 'template_mismatch'],
    ['claiming another prevout value', l.id, signPsbt(buildListingPsbt({ txid: l.utxo_txid, vout: l.utxo_vout, utxoValueSats: 546, sellerScript: s.w.script, priceSats: 26_000 }), s.w, [0], SigHash.SINGLE_ANYONECANPAY), 422, 'template_mismatch'],
    ['below the minimum', l.id, repriceHalf(s, l, 4_000), 422, 'price_below_minimum'],
  ];
  for (const [what, id, psbt, status, code] of cases) {
    const x = await m.call('POST', `/v1/listings/${id}/reprice`, s.token, { psbt_hex: psbt });
    assert.equal(x.status, status, `${what}: ${JSON.stringify(x.body)}`);
    assert.equal(x.body.code, code, what);
  }
  const foreign = await m.call('POST', `/v1/listings/${l.id}/reprice`, other.token, { psbt_hex: half });
  const missing = await m.call('POST', '/v1/listings/lst_0000/reprice', other.token, { psbt_hex: half });
  assert.equal(foreign.status, 404);
  assert.deepEqual(foreign.body, missing.body);
  assert.deepEqual([(await row(l.id)).price_sats, (await row(l.id)).version], [25_000, 2], 'nothing changed');

  // A buyer's claim wins: a reserved listing is not repriced.
  await m.ctx.store.db.updateTable('listings').set({ state: 'reserved' }).where('id', '=', l.id).execute();
  const claimed = await m.call('POST', `/v1/listings/${l.id}/reprice`, s.token, { psbt_hex: repriceHalf(s, l, 30_000) });
  assert.equal(claimed.status, 409);
  assert.equal(claimed.body.code, 'state_changed');
  assert.equal((await row(l.id)).signed_psbt, half);
});

/** A listing half over the listed unit built by hand, with the transaction fields a wallet could pick. */
function handBuiltHalf(s: { w: TestWallet }, l: { utxo_txid: string; utxo_vout: number }, price: number, f: { version: number; lockTime: number; sequence: number }) {
  const tx = new Transaction({ version: f.version, lockTime: f.lockTime, allowUnknownOutputs: true });
  tx.addInput({ txid: l.utxo_txid, index: l.utxo_vout, sequence: f.sequence, witnessUtxo: { script: s.w.script, amount: 330n }, sighashType: 0x83 });
  tx.addOutput({ script: s.w.script, amount: BigInt(price) });
  return signPsbt(hex.encode(tx.toPSBT()), s.w, [0], SigHash.SINGLE_ANYONECANPAY);
}

void test('reprice: a half no checkout can settle (non-final locktime, relative timelock, other version) is refused', async () => {
  const s = await sellerWith(1);
  const l = await listUnit(s, 20_000);
  const before = await row(l.id);
  const cases: Array<[string, { version: number; lockTime: number; sequence: number }]> = [
    // Signed with a locktime in 2096: every checkout carrying this half is non-final, so the
    // cheapest ask on the book could never be bought (the node answers "non-final").
    ['a non-final locktime', { version: 2, lockTime: 4_000_000_000, sequence: 0xfffffffe }],
    ['a relative timelock of 100 blocks', { version: 2, lockTime: 0, sequence: 100 }],
    ['transaction version 3 (TRUC rules)', { version: 3, lockTime: 0, sequence: 0xffffffff }],
  ];
  for (const [what, fields] of cases) {
    const r = await m.call('POST', `/v1/listings/${l.id}/reprice`, s.token, { psbt_hex: handBuiltHalf(s, l, 6_000, fields) });
    assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, 'template_mismatch', what);
    const batch = await m.call('POST', '/v1/listings/batch', s.token, { action: 'reprice', listings: [{ listing_id: l.id, psbt_hex: handBuiltHalf(s, l, 6_000, fields) }] });
    assert.equal(batch.status, 422, `batch, ${what}: ${JSON.stringify(batch.body)}`);
    assert.equal(batch.body.code, 'template_mismatch', what);
  }
  const after = await row(l.id);
  assert.deepEqual([after.price_sats, after.version, after.signed_psbt], [before.price_sats, before.version, before.signed_psbt], 'nothing changed');
  // The fields of the market's own template are accepted.
  const ok = await m.call('POST', `/v1/listings/${l.id}/reprice`, s.token, { psbt_hex: handBuiltHalf(s, l, 6_000, { version: 2, lockTime: 0, sequence: 0xffffffff }) });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

/** A signed half whose input carries the previous transaction (nonWitnessUtxo) instead of witnessUtxo. */
async function withoutWitnessUtxo(signedHex: string, prevTxid: string): Promise<string> {
  const prev = await m.devnet.bitcoin.getTransaction(prevTxid);
  const tx = Transaction.fromPSBT(hex.decode(signedHex), READ_TX_OPTS);
  tx.updateInput(0, { nonWitnessUtxo: hex.decode(prev!.hex) }, true);
  tx.updateInput(0, { witnessUtxo: undefined }, true);
  assert.equal(tx.getInput(0).witnessUtxo, undefined);
  return hex.encode(tx.toPSBT());
}

void test('a listing half without witnessUtxo (which a checkout copies) is refused when listing and repricing', async () => {
  const s = await sellerWith(2);
  const l = await listUnit(s, 20_000);
  const before = await row(l.id);
  // Verified from nonWitnessUtxo it is a valid half, but the checkout builds the buyer's
  // transaction from the half's witnessUtxo: stored like this, every quote of the asset picking
  // this (cheapest) ask failed with state_changed.
  const half = await withoutWitnessUtxo(repriceHalf(s, l, 6_000), l.utxo_txid);
  const r = await m.call('POST', `/v1/listings/${l.id}/reprice`, s.token, { psbt_hex: half });
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.code, 'template_mismatch');
  const batch = await m.call('POST', '/v1/listings/batch', s.token, { action: 'reprice', listings: [{ listing_id: l.id, psbt_hex: half }] });
  assert.equal(batch.status, 422, JSON.stringify(batch.body));
  assert.equal(batch.body.code, 'template_mismatch');
  const after = await row(l.id);
  assert.deepEqual([after.price_sats, after.version, after.signed_psbt], [before.price_sats, before.version, before.signed_psbt], 'nothing changed');

  const at = await m.attachDirect(s.w, s.asset, '1');
  const pf = await m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', asset_utxo: at, price_sats: 6_000, idempotency_key: `mt-${++n}` });
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  const signed = signPsbt(pf.body.result.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY);
  const listed = await m.call('POST', `/v1/listing-preflights/${pf.body.result.id}/listing`, s.token, { psbt_hex: await withoutWitnessUtxo(signed, at.txid), expires_at: now() + 3600 });
  assert.equal(listed.status, 422, JSON.stringify(listed.body));
  assert.equal(listed.body.code, 'template_mismatch');
  assert.equal((await m.ctx.store.db.selectFrom('listings').select('id').where('draft_id', '=', pf.body.result.id).execute()).length, 0);
  const ok = await m.call('POST', `/v1/listing-preflights/${pf.body.result.id}/listing`, s.token, { psbt_hex: signed, expires_at: now() + 3600 });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

void test('batch: reprice_preflight templates, verified reprice with per-item outcomes, all-or-nothing refusals', async () => {
  const s = await sellerWith(3);
  const other = await sellerWith(1);
  const [a, b] = [await listUnit(s, 10_000), await listUnit(s, 11_000)];
  const theirs = await listUnit(other, 12_000);
  const batch = (token: string, body: unknown) => m.call('POST', '/v1/listings/batch', token, body);

  const pre = await batch(s.token, { action: 'reprice_preflight', listings: [{ listing_id: b.id, price_sats: 15_000 }, { listing_id: a.id, price_sats: 14_000 }] });
  assert.equal(pre.status, 200, JSON.stringify(pre.body));
  const items = pre.body.result.listings;
  assert.deepEqual(items.map((i: any) => [i.listing_id, i.current_price_sats, i.listing.price_sats, i.listing.sighash]), [[b.id, 11_000, 15_000, 'SINGLE|ANYONECANPAY'], [a.id, 10_000, 14_000, 'SINGLE|ANYONECANPAY']]);
  assert.equal(items[0].protocol_version, 'counterparty_attach_listing_v1');
  assert.deepEqual(items[0].asset_utxo, { txid: b.utxo_txid, vout: 0, utxo_value_sats: 330 });

  const refusedPre = await batch(s.token, { action: 'reprice_preflight', listings: [{ listing_id: a.id, price_sats: 14_000 }, { listing_id: theirs.id, price_sats: 9_000 }, { listing_id: 'lst_nope', price_sats: 9_000 }] });
  assert.equal(refusedPre.status, 404);
  assert.equal(refusedPre.body.code, 'not_found');
  assert.deepEqual(refusedPre.body.refused_listings.map((r: any) => [r.index, r.listing_id, r.status, r.code]), [[1, theirs.id, 404, 'not_found'], [2, 'lst_nope', 404, 'not_found']]);
  // Every refusal is listed, the caller's own items' included, in request order; the first sets the status.
  const mixed = await batch(s.token, { action: 'reprice_preflight', listings: [{ listing_id: a.id, price_sats: 4_999 }, { listing_id: theirs.id, price_sats: 9_000 }, { listing_id: b.id, price_sats: 9_000 }] });
  assert.deepEqual([mixed.status, mixed.body.code], [422, 'price_below_minimum']);
  assert.equal(mixed.body.minimum_price_sats, 5_000, 'the first refusal\'s extras sit in the envelope');
  assert.deepEqual(mixed.body.refused_listings.map((r: any) => [r.index, r.listing_id, r.status, r.code]), [[0, a.id, 422, 'price_below_minimum'], [1, theirs.id, 404, 'not_found']]);

  const signedA = signPsbt(items[1].listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY);
  const signedB = signPsbt(items[0].listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY);
  const badB = signPsbt(items[0].listing.psbt_hex, s.w, [0], SigHash.ALL);
  const bad = await batch(s.token, { action: 'reprice', listings: [{ listing_id: a.id, psbt_hex: signedA }, { listing_id: b.id, psbt_hex: badB }] });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.code, 'signature_invalid');
  assert.deepEqual(bad.body.refused_listings.map((r: any) => [r.index, r.listing_id]), [[1, b.id]]);
  assert.equal((await row(a.id)).price_sats, 10_000, 'nothing changed, not even the valid item');

  await m.ctx.store.db.updateTable('listings').set({ state: 'reserved' }).where('id', '=', b.id).execute();
  const r = await batch(s.token, { action: 'reprice', listings: [{ listing_id: a.id, psbt_hex: signedA }, { listing_id: b.id, psbt_hex: signedB }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.result.listings.map((o: any) => [o.index, o.listing_id, o.ok, o.code ?? null, o.price_sats ?? null]), [[0, a.id, true, null, 14_000], [1, b.id, false, 'state_changed', null]]);
  assert.deepEqual([(await row(a.id)).price_sats, (await row(a.id)).version, (await row(b.id)).price_sats], [14_000, 2, 11_000]);

  const dup = await batch(s.token, { action: 'delist', listings: [{ listing_id: a.id }, { listing_id: a.id }] });
  assert.equal(dup.status, 400);
  const tooMany = await batch(s.token, { action: 'delist', listings: Array.from({ length: 21 }, (_, i) => ({ listing_id: `lst_${i}` })) });
  assert.equal(tooMany.status, 400);
});

void test('delist: batch (ownership first, per-item outcomes) and single; the signed half is wiped, the owner feed told', async () => {
  const s = await sellerWith(3);
  const other = await sellerWith(1);
  const [a, b, c] = [await listUnit(s, 10_000), await listUnit(s, 10_000), await listUnit(s, 10_000)];
  const theirs = await listUnit(other, 12_000);
  const refused = await m.call('POST', '/v1/listings/batch', s.token, { action: 'delist', listings: [{ listing_id: a.id }, { listing_id: theirs.id }] });
  assert.equal(refused.status, 404);
  assert.equal(refused.body.refused_listings.length, 1);
  assert.equal((await row(a.id)).state, 'active', 'nothing changed');
  assert.equal((await row(theirs.id)).state, 'active');

  await m.ctx.store.db.updateTable('listings').set({ state: 'reserved' }).where('id', '=', b.id).execute();
  const r = await m.call('POST', '/v1/listings/batch', s.token, { action: 'delist', listings: [{ listing_id: a.id }, { listing_id: b.id }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.result.listings.map((o: any) => [o.listing_id, o.ok, o.code ?? null]), [[a.id, true, null], [b.id, false, 'state_changed']]);
  const ended = await row(a.id);
  assert.deepEqual([ended.state, ended.end_reason, ended.signed_psbt], ['ended', 'owner', null]);
  assert.notEqual((await row(b.id)).signed_psbt, null);

  const single = await m.call('POST', `/v1/listings/${c.id}/delist`, s.token);
  assert.equal(single.status, 200, JSON.stringify(single.body));
  assert.deepEqual(single.body.result, { id: c.id, state: 'ended', end_reason: 'owner' });
  assert.equal((await m.call('POST', `/v1/listings/${c.id}/delist`, s.token)).status, 409);
  assert.equal((await m.call('POST', `/v1/listings/${theirs.id}/delist`, s.token)).status, 404);
  const events = await m.ctx.store.db.selectFrom('owner_events').selectAll().where('address', '=', s.w.address).orderBy('listing_id').execute();
  assert.deepEqual(events.map((e) => [e.kind, e.listing_id]).sort(), [['listing_delisted', a.id], ['listing_delisted', c.id]].sort());
  const draft = (await m.call('GET', `/v1/listing-preflights/${a.draft.id}`, s.token)).body.result;
  assert.deepEqual([draft.status, draft.listing_status, draft.listing_end_reason], ['completed', 'ended', 'owner']);
});

void test('draft price and discard; the seller’s draft list with paging and state=in_flight', async () => {
  const s = await sellerWith(3);
  const other = await sellerWith(1);
  const create = (key: string, extra: Record<string, unknown> = {}) =>
    m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', idempotency_key: key, ...extra });
  const d1 = (await create('p1')).body.result;
  assert.equal(d1.listing, undefined);
  const priced = await m.call('POST', `/v1/listing-preflights/${d1.id}/price`, s.token, { price_sats: 33_000 });
  assert.equal(priced.status, 200, JSON.stringify(priced.body));
  assert.equal(priced.body.result.listing.price_sats, 33_000);
  assert.equal(priced.body.result.fees.platform.amount_sats, 660);
  assert.equal((await m.call('POST', `/v1/listing-preflights/${d1.id}/price`, s.token, { price_sats: 100 })).body.code, 'price_below_minimum');
  assert.equal((await m.call('POST', `/v1/listing-preflights/${d1.id}/price`, other.token, { price_sats: 9_000 })).status, 404);

  // Submit it so it is in flight; then neither discard nor a draft list entry is lost.
  const sub = await m.call('POST', `/v1/listing-preflights/${d1.id}/attach`, s.token, { psbt_hex: signPsbt(d1.attach.psbt_hex, s.w, [0], SigHash.ALL) });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  assert.equal((await m.call('DELETE', `/v1/listing-preflights/${d1.id}`, s.token)).status, 409);
  await m.fund(s.w, 20_000);
  await m.fund(s.w, 20_000);
  m.clock.advance(1000);
  const d2 = (await create('p2')).body.result;
  m.clock.advance(1000);
  const d3 = (await create('p3')).body.result;

  const inFlight = await m.call('GET', `/v1/address/${s.w.address}/listing-preflights?state=in_flight&limit=1`, s.token);
  assert.equal(inFlight.status, 200);
  assert.deepEqual(inFlight.body.result.map((d: any) => d.id), [d1.id]);
  assert.equal(inFlight.body.next_cursor, null);

  const p1 = await m.call('GET', `/v1/address/${s.w.address}/listing-preflights?limit=2`, s.token);
  assert.deepEqual(p1.body.result.map((d: any) => d.id), [d3.id, d2.id]);
  assert.equal(p1.body.result_count, 2);
  const p2 = await m.call('GET', `/v1/address/${s.w.address}/listing-preflights?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`, s.token);
  assert.deepEqual(p2.body.result.map((d: any) => d.id), [d1.id]);
  assert.equal(p2.body.next_cursor, null);
  assert.equal((await m.call('GET', `/v1/address/${s.w.address}/listing-preflights`, other.token)).status, 403);
  assert.equal((await m.call('GET', `/v1/address/${s.w.address}/listing-preflights`, null)).status, 401);

  const discarded = await m.call('DELETE', `/v1/listing-preflights/${d3.id}`, s.token);
  assert.deepEqual(discarded.body.result, { id: d3.id, discarded: true });
  assert.equal((await m.call('GET', `/v1/listing-preflights/${d3.id}`, s.token)).status, 404);
  const reused = await create('p3', { price_sats: 6_000 });
  assert.equal(reused.status, 200, 'the key is free again');
  assert.notEqual(reused.body.result.id, d3.id);
});

void test('a listing past its expiry (derived at read time) does not block listing the unit again before the indexer writes it', async () => {
  const s = await sellerWith(1);
  const at = await m.attachDirect(s.w, s.asset, '1');
  const pf = (await m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', asset_utxo: at, price_sats: 20_000, idempotency_key: `mt-${++n}` })).body.result;
  const first = await m.call('POST', `/v1/listing-preflights/${pf.id}/listing`, s.token, { psbt_hex: signPsbt(pf.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY), expires_at: now() + 600 });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  m.clock.advance(601_000);
  const read = (await m.call('GET', `/v1/listing-preflights/${pf.id}`, s.token)).body.result;
  assert.deepEqual([read.listing_status, read.listing_end_reason], ['ended', 'expired']);
  const prepared = (await m.call('GET', '/v1/inventory/prepared', s.token)).body.result;
  assert.deepEqual(prepared.map((u: any) => [u.asset_utxo.txid, u.listing_id]), [[at.txid, null]], 'inventory: the unit is not listed');
  assert.equal((await row(first.body.result.id)).state, 'active', 'no block yet: the stored row still says active');

  const again = await m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', asset_utxo: at, price_sats: 18_000, idempotency_key: `mt-${++n}` });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  const relisted = await m.call('POST', `/v1/listing-preflights/${again.body.result.id}/listing`, s.token, {
    psbt_hex: signPsbt(again.body.result.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: now() + 3600,
  });
  assert.equal(relisted.status, 200, JSON.stringify(relisted.body));
  assert.equal(relisted.body.result.state, 'active');
  const old = await row(first.body.result.id);
  assert.deepEqual([old.state, old.end_reason, old.signed_psbt], ['ended', 'expired', null]);
  const ev = await m.ctx.store.db.selectFrom('owner_events').selectAll().where('listing_id', '=', old.id).execute();
  assert.deepEqual(ev.map((e) => [e.kind, e.at]), [['listing_expired', old.expires_at]]);
});

void test('batch: a reprice_preflight naming only missing or foreign listings is a 404 with refused_listings on every backend (PostgreSQL once answered 500 for an empty IN ())', async () => {
  const s = await sellerWith(1);
  const other = await sellerWith(1);
  const theirs = await listUnit(other, 12_000);
  for (const listings of [[{ listing_id: 'lst_000000000000000000000000', price_sats: 10_000 }], [{ listing_id: theirs.id, price_sats: 10_000 }, { listing_id: 'lst_nope', price_sats: 10_000 }]]) {
    const r = await m.call('POST', '/v1/listings/batch', s.token, { action: 'reprice_preflight', listings });
    assert.deepEqual([r.status, r.body.code], [404, 'not_found'], JSON.stringify(r.body));
    assert.deepEqual(r.body.refused_listings.map((x: any) => [x.index, x.listing_id, x.code]), listings.map((l, i) => [i, l.listing_id, 'not_found']));
  }
});
