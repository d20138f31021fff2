/** Quote refusals: session and owner, addresses and roles, cart limits, fillability, self-trade, funding. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { assetCarryingCoin, complete, newBuyer, quote, quoteOk, signQuote } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const inputsOf = (psbtHex: string) => {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  return Array.from({ length: tx.inputsLength }, (_, i) => `${hex.encode(tx.getInput(i).txid!)}:${tx.getInput(i).index}`);
};

void test('session, buyer and delivery addresses: 401, 403, 400 unsupported_address_type, 400 invalid_request', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'roles');
  const l = await listUnit(m, seller, 10_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'roles');
  const other = makeWallet('p2tr', 'roles-other');
  const legacy = await newBuyer(m, 'p2pkh', 'roles-legacy');
  const lines = [{ listing_id: l.id }];

  const cases: Array<[string, string | null, Record<string, unknown>, number, string]> = [
    ['no session', null, { lines }, 401, 'unauthenticated'],
    ['another buyer address', buyer.token, { lines, buyer_address: other.address }, 403, 'forbidden'],
    ['a P2PKH session buys', legacy.token, { lines }, 400, 'unsupported_address_type'],
    ['a P2PKH buyer_address', legacy.token, { lines, buyer_address: legacy.w.address }, 400, 'unsupported_address_type'],
    ['a mainnet delivery address', buyer.token, { lines, delivery_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' }, 400, 'invalid_request'],
    ['attached delivery to P2PKH', buyer.token, { lines, delivery_mode: 'attached', delivery_address: legacy.w.address }, 400, 'unsupported_address_type'],
    ['an unknown delivery mode', buyer.token, { lines, delivery_mode: 'mailed' }, 400, 'invalid_request'],
    ['fee_rate below 0.1', buyer.token, { lines, fee_rate: 0.05 }, 400, 'invalid_request'],
    ['fee_rate above 500', buyer.token, { lines, fee_rate: 501 }, 400, 'invalid_request'],
  ];
  for (const [what, token, body, status, code] of cases) {
    const r = await m.call('POST', '/v1/checkout/quotes', token, body);
    assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, code, what);
  }
  // Detached delivery takes any family Counterparty knows, P2PKH included.
  const ok = await quoteOk(m, buyer, { lines, delivery_address: legacy.w.address });
  assert.deepEqual(ok.delivery, { mode: 'detached', address: legacy.w.address });
});

void test('cart limits: 10 lines, 20 units, no listing twice; attached delivery is one item', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'limits', 2);
  const [a, b] = [await listUnit(m, seller, 10_000), await listUnit(m, seller, 11_000)];
  const buyer = await newBuyer(m, 'p2wpkh', 'limits');
  const eleven = Array.from({ length: 11 }, (_, i) => ({ listing_id: `lst_${i}` }));
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ['11 lines', { lines: eleven }, 400, 'invalid_request'],
    ['21 units', { lines: [{ asset: seller.asset, quantity: 20 }, { listing_id: a.id }] }, 400, 'invalid_request'],
    ['a line of 21 units', { lines: [{ asset: seller.asset, quantity: 21 }] }, 400, 'invalid_request'],
    ['no lines', { lines: [] }, 400, 'invalid_request'],
    ['a listing twice', { lines: [{ listing_id: a.id }, { listing_id: a.id }] }, 400, 'invalid_request'],
    ['quantity 0', { lines: [{ asset: seller.asset, quantity: 0 }] }, 400, 'invalid_request'],
    ['a longname asset', { lines: [{ asset: 'PARENT.child', quantity: 1 }] }, 400, 'invalid_request'],
    ['both shapes in one line', { lines: [{ listing_id: a.id, asset: seller.asset, quantity: 1 }] }, 400, 'invalid_request'],
    ['attached, two listings', { lines: [{ listing_id: a.id }, { listing_id: b.id }], delivery_mode: 'attached' }, 422, 'attached_delivery_single_item_only'],
    ['attached, an asset line of two', { lines: [{ asset: seller.asset, quantity: 2 }], delivery_mode: 'attached' }, 422, 'attached_delivery_single_item_only'],
  ];
  for (const [what, body, status, code] of cases) {
    const r = await quote(m, buyer, body);
    assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, code, what);
  }
  const twenty = await quote(m, buyer, { lines: [{ asset: seller.asset, quantity: 20 }] });
  assert.deepEqual([twenty.status, twenty.body.code, twenty.body.available], [409, 'state_changed', 2], 'a 20-unit line is allowed, and short');
});

void test('unknown listing 404; a listing that is not fillable 409 state_changed naming it; a short asset line names asset and available', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'fillable', 3);
  const [a, b, c] = [await listUnit(m, seller, 10_000), await listUnit(m, seller, 10_000), await listUnit(m, seller, 10_000, { ttl: 60 })];
  const buyer = await newBuyer(m, 'p2wpkh', 'fillable');
  const first = await newBuyer(m, 'p2wpkh', 'fillable-first');

  const missing = await quote(m, buyer, { lines: [{ listing_id: a.id }, { listing_id: 'lst_nope' }] });
  assert.deepEqual([missing.status, missing.body.code, missing.body.listing_id], [404, 'not_found', 'lst_nope']);

  // a: bought by someone else (reserved, its outpoint claimed); b: delisted; c: expired.
  const q = await quoteOk(m, first, { lines: [{ listing_id: a.id }] });
  assert.equal((await complete(m, first, q.id, signQuote(q, first.w))).status, 200);
  assert.equal((await m.call('POST', `/v1/listings/${b.id}/delist`, seller.token)).status, 200);
  m.clock.advance(61_000);
  for (const [l, state] of [[a, 'reserved'], [b, 'ended'], [c, 'ended']] as const) {
    const r = await quote(m, buyer, { lines: [{ listing_id: l.id }] });
    assert.deepEqual([r.status, r.body.code, r.body.listing_id, r.body.state], [409, 'state_changed', l.id, state], JSON.stringify(r.body));
  }
  const more = await newSeller(m, 'p2tr', 'fillable-more', 1, seller.asset);
  await listUnit(m, more, 12_000);
  const short = await quote(m, buyer, { lines: [{ asset: seller.asset, quantity: 2 }] });
  assert.deepEqual([short.status, short.body.code, short.body.asset, short.body.available, short.body.requested], [409, 'state_changed', seller.asset, 1, 2]);
  const none = await quote(m, buyer, { lines: [{ asset: 'A95428956661682177', quantity: 1 }] });
  assert.deepEqual([none.status, none.body.code, none.body.available], [409, 'state_changed', 0]);
});

void test('own listings are skipped; only own ones left is 409 self_trade with own_listings', async () => {
  const me = await newSeller(m, 'p2wpkh', 'self', 2);
  await m.fund(me.w, 100_000);
  const other = await newSeller(m, 'p2tr', 'self-other', 1, me.asset);
  const [mine1, mine2] = [await listUnit(m, me, 10_000), await listUnit(m, me, 10_000)];
  const theirs = await listUnit(m, other, 15_000);
  const buyer = { w: me.w, token: me.token };

  const only = await quote(m, buyer, { lines: [{ listing_id: mine1.id }, { listing_id: mine2.id }] });
  assert.deepEqual([only.status, only.body.code, only.body.own_listings], [409, 'self_trade', [mine1.id, mine2.id]]);
  const mixed = await quoteOk(m, buyer, { lines: [{ listing_id: mine1.id }, { listing_id: theirs.id }] });
  assert.deepEqual(mixed.lines.map((l: any) => l.listing_id), [theirs.id]);
  assert.deepEqual(mixed.skipped_own_listings, [mine1.id]);
  const byAsset = await quoteOk(m, buyer, { lines: [{ asset: me.asset, quantity: 1 }] });
  assert.deepEqual(byAsset.lines.map((l: any) => l.listing_id), [theirs.id], 'the cheaper own units are never picked');

  const loner = await newSeller(m, 'p2wpkh', 'self-loner');
  await m.fund(loner.w, 100_000);
  const lone = await listUnit(m, loner, 9_000);
  const r = await quote(m, { w: loner.w, token: loner.token }, { lines: [{ asset: loner.asset, quantity: 1 }] });
  assert.deepEqual([r.status, r.body.code, r.body.own_listings], [409, 'self_trade', [lone.id]]);
});

void test('insufficient_funds counts asset-free BTC only: a big UTXO carrying an attached asset is never spent', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'funds');
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'funds', [10_000]);
  // The buyer's biggest UTXO (1,000,000 sats) carries an attached unit of the buyer's own asset.
  const { txid: big, asset } = await assetCarryingCoin(m, buyer.w);
  assert.equal((await m.ctx.chain.counterparty.getUtxoBalances(`${big}:0`))[0]?.asset, asset);

  const r = await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 });
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.code, 'insufficient_funds');
  assert.equal(r.body.have_sats, 10_000);
  assert.ok(r.body.need_sats > 20_000 + 546 - 330);
  assert.equal(r.body.shortfall_sats, r.body.need_sats - r.body.have_sats);

  // With enough asset-free BTC the quote passes, and still leaves the asset UTXO alone.
  await m.fund(buyer.w, 15_000);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 });
  assert.ok(!inputsOf(q.psbt_hex).includes(`${big}:0`));
  assert.equal(q.inputs_to_sign.length, 2, 'two small coins rather than the asset UTXO');
});

void test('the OpenAPI document describes the checkout routes and their design choices', async () => {
  const r = await m.call('GET', '/v1/openapi.json', null);
  assert.equal(r.status, 200);
  const paths = r.body.paths as Record<string, any>;
  assert.match(paths['/v1/checkout/quotes'].post.description, /self_trade/);
  assert.match(paths['/v1/checkout/quotes'].post.description, /10 minutes/);
  assert.match(paths['/v1/checkout/quotes/{id}/complete'].post.description, /checkout_changed/);
  assert.match(paths['/v1/checkout/quotes/{id}'].get.description, /broadcasting/);
});
