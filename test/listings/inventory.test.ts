/** GET /v1/inventory/attachable (public, 10 s) and GET /v1/inventory/prepared (session, no-store). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { p2pk, p2wsh, SigHash } from '@scure/btc-signer';
import { networkParams } from '../../src/bitcoin/networks.js';
import { makeWallet } from '../helpers/wallets.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const now = () => Math.floor(m.clock.now() / 1000);

void test('attachable: address-level balances net of open drafts; public, cached 10 s; role checked', async () => {
  const w = makeWallet('p2pkh', 'inv-source');
  const seller = makeWallet('p2wpkh', 'inv-seller');
  await m.fund(w, 50_000);
  const asset = await m.issue(w, '3');
  await m.credit(w, 'XCP', '12345');
  await m.attachDirect(w, asset, '1');
  const token = await m.signIn(seller);
  const pf = await m.call('POST', '/v1/listing-preflights', token, { seller: seller.address, asset_source: w.address, asset, quantity_raw: '1', idempotency_key: 'inv-1' });
  assert.equal(pf.status, 200, JSON.stringify(pf.body));

  const r = await m.call('GET', `/v1/inventory/attachable?address=${w.address}`, null);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.headers['cache-control'], 'public, max-age=10');
  assert.equal(r.body.result.address, w.address);
  assert.equal(r.body.result.attach_fee_raw, '0');
  const rows = Object.fromEntries(r.body.result.assets.map((a: any) => [a.asset, a]));
  assert.deepEqual(rows[asset], { asset, asset_longname: null, quantity_raw: '2', committed_raw: '1', attachable_raw: '1' }, 'one unit attached already, one promised');
  assert.deepEqual(rows.XCP, { asset: 'XCP', asset_longname: null, quantity_raw: '12345', committed_raw: '0', attachable_raw: '12345' });

  const wsh = p2wsh(p2pk(makeWallet('p2wpkh', 'inv-wsh').publicKey), networkParams('regtest')).address!;
  const bad = await m.call('GET', `/v1/inventory/attachable?address=${wsh}`, null);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'unsupported_address_type');
  assert.equal((await m.call('GET', '/v1/inventory/attachable', null)).status, 400);
});

void test('prepared: attached, confirmed, one-asset units of the session address, listed or not', async () => {
  const w = makeWallet('p2wpkh', 'inv-owner');
  await m.fund(w, 100_000);
  const asset = await m.issue(w, '4');
  const token = await m.signIn(w);
  const a = await m.attachDirect(w, asset, '1');
  const b = await m.attachDirect(w, asset, '2');
  // A third attach still in the mempool is not a prepared unit yet.
  const t = await m.call('POST', '/v1/attach-templates', token, { utxo_owner: w.address, asset, quantity_raw: '1' });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  const sub = await m.call('POST', `/v1/listing-preflights/${t.body.result.id}/attach`, token, { psbt_hex: signPsbt(t.body.result.attach.psbt_hex, w, [0], SigHash.ALL) });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));

  const pf = await m.call('POST', '/v1/listing-preflights', token, { seller: w.address, asset, quantity_raw: '1', mode: 'reuse', asset_utxo: a, price_sats: 15_000, idempotency_key: 'inv-list' });
  const l = await m.call('POST', `/v1/listing-preflights/${pf.body.result.id}/listing`, token, { psbt_hex: signPsbt(pf.body.result.listing.psbt_hex, w, [0], SigHash.SINGLE_ANYONECANPAY), expires_at: now() + 3600 });
  assert.equal(l.status, 200, JSON.stringify(l.body));

  const r = await m.call('GET', '/v1/inventory/prepared', token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.headers['cache-control'], 'no-store');
  const byTxid = Object.fromEntries(r.body.result.map((u: any) => [u.asset_utxo.txid, u]));
  assert.deepEqual(Object.keys(byTxid).sort(), [a.txid, b.txid].sort());
  assert.deepEqual(byTxid[a.txid], {
    asset, asset_longname: null, quantity_raw: '1', asset_utxo: { txid: a.txid, vout: 0, utxo_value_sats: 330 }, confirmations: byTxid[a.txid].confirmations,
    listing_id: l.body.result.id, listing_status: 'active', listed_price_sats: 15_000, custody: 'address',
  });
  assert.deepEqual([byTxid[b.txid].quantity_raw, byTxid[b.txid].listing_id], ['2', null]);

  await m.mine();
  await m.sync();
  const again = await m.call('GET', '/v1/inventory/prepared', token);
  assert.equal(again.body.result.length, 3, 'the template’s unit is prepared once confirmed');
  assert.equal((await m.call('GET', `/v1/listing-preflights/${t.body.result.id}`, token)).body.result.status, 'prepared');
  assert.equal((await m.call('GET', '/v1/inventory/prepared', null)).status, 401);
});
