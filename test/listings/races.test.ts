/** Concurrent requests: exactly one winner; and the routes are documented in the OpenAPI. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { makeWallet } from '../helpers/wallets.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const now = () => Math.floor(m.clock.now() / 1000);
let n = 0;
async function seller() {
  const w = makeWallet('p2wpkh', `race-${++n}`);
  await m.fund(w, 100_000);
  const asset = await m.issue(w, '1');
  return { w, asset, token: await m.signIn(w) };
}

void test('the same idempotency key fired concurrently makes one draft', async () => {
  const s = await seller();
  const body = { seller: s.w.address, asset: s.asset, quantity_raw: '1', price_sats: 12_000, idempotency_key: 'race-key' };
  const replies = await Promise.all(Array.from({ length: 5 }, () => m.call('POST', '/v1/listing-preflights', s.token, body)));
  assert.deepEqual(replies.map((r) => r.status), [200, 200, 200, 200, 200]);
  assert.equal(new Set(replies.map((r) => r.body.result.id)).size, 1);
});

void test('concurrent preflights with different keys for the one unit a source holds: one draft commits it, the rest are refused', async () => {
  const s = await seller();
  await m.fund(s.w, 100_000); // coins enough for several attaches: only the balance is short
  await m.fund(s.w, 100_000);
  const replies = await Promise.all(
    Array.from({ length: 4 }, (_, i) =>
      m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', mode: 'attach', price_sats: 12_000, idempotency_key: `race-unit-${i}` }),
    ),
  );
  assert.deepEqual(replies.map((r) => r.status).sort(), [200, 422, 422, 422], JSON.stringify(replies.map((r) => r.body.code ?? r.status)));
  for (const r of replies.filter((x) => x.status === 422)) {
    assert.deepEqual([r.body.code, r.body.held_raw, r.body.committed_raw, r.body.needed_raw], ['insufficient_asset_balance', '1', '1', '1']);
  }
  const drafts = await m.ctx.store.db.selectFrom('listing_drafts').select('id').where('seller', '=', s.w.address).execute();
  assert.equal(drafts.length, 1);
});

void test('one signed attach submitted concurrently is journaled once; one listing wins its outpoint', async () => {
  const s = await seller();
  const d = (await m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', price_sats: 12_000, idempotency_key: 'race-attach' })).body.result;
  const attach = signPsbt(d.attach.psbt_hex, s.w, [0], SigHash.ALL);
  const replies = await Promise.all(Array.from({ length: 4 }, () => m.call('POST', `/v1/listing-preflights/${d.id}/attach`, s.token, { psbt_hex: attach })));
  assert.ok(replies.some((r) => r.status === 200));
  for (const r of replies) assert.ok(r.status === 200 || (r.status === 409 && r.body.code === 'state_changed'), JSON.stringify(r.body));
  const journaled = await m.ctx.store.db.selectFrom('settlements').selectAll().where('ref_id', '=', d.id).execute();
  assert.equal(journaled.length, 1);

  const listing = signPsbt(d.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY);
  const lists = await Promise.all(Array.from({ length: 4 }, () => m.call('POST', `/v1/listing-preflights/${d.id}/listing`, s.token, { psbt_hex: listing, expires_at: now() + 600 })));
  assert.equal(lists.filter((r) => r.status === 200).length, 1, JSON.stringify(lists.map((r) => r.body)));
  assert.ok(lists.filter((r) => r.status !== 200).every((r) => r.status === 409));
  const rows = await m.ctx.store.db.selectFrom('listings').selectAll().where('draft_id', '=', d.id).execute();
  assert.equal(rows.length, 1);
});

void test('delist against a concurrent claim: either the delist or the claim wins, never both', async () => {
  const s = await seller();
  const at = await m.attachDirect(s.w, s.asset);
  const pf = (await m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', asset_utxo: at, price_sats: 9_000, idempotency_key: 'race-delist' })).body.result;
  const l = (await m.call('POST', `/v1/listing-preflights/${pf.id}/listing`, s.token, { psbt_hex: signPsbt(pf.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY), expires_at: now() + 600 })).body.result;
  const claim = m.ctx.store.db.updateTable('listings').set({ state: 'reserved' }).where('id', '=', l.id).where('state', '=', 'active').executeTakeFirst();
  const [claimed, delist] = await Promise.all([claim, m.call('POST', `/v1/listings/${l.id}/delist`, s.token)]);
  const row = await m.ctx.store.db.selectFrom('listings').selectAll().where('id', '=', l.id).executeTakeFirstOrThrow();
  if (Number(claimed.numUpdatedRows) === 1) {
    assert.equal(delist.status, 409);
    assert.equal(row.state, 'reserved');
    assert.notEqual(row.signed_psbt, null);
  } else {
    assert.equal(delist.status, 200);
    assert.deepEqual([row.state, row.signed_psbt], ['ended', null]);
  }
});

void test('the OpenAPI document describes the seller routes', async () => {
  const r = await m.call('GET', '/v1/openapi.json', null);
  assert.equal(r.status, 200);
  const paths = Object.keys(r.body.paths);
  for (const p of [
    '/v1/listing-preflights', '/v1/attach-templates', '/v1/listing-preflights/{id}', '/v1/listing-preflights/{id}/attach',
    '/v1/listing-preflights/{id}/attach-and-list', '/v1/listing-preflights/{id}/listing', '/v1/listing-preflights/{id}/price',
    '/v1/address/{address}/listing-preflights', '/v1/listings/{id}/reprice', '/v1/listings/{id}/delist', '/v1/listings/batch',
    '/v1/inventory/attachable', '/v1/inventory/prepared',
  ]) assert.ok(paths.includes(p), p);
  assert.match(r.body.paths['/v1/listing-preflights'].post.description, /P2PKH source changes the txid/);
});
