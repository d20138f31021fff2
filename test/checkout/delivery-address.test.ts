/**
 * The detach destination is a string in Counterparty's ledger: only the one spelling the owner's
 * wallet spends from may reach it, so other spellings of the same script are refused at the edge.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, fillsOf, heldAt, newBuyer, quote, quoteOk, signQuote } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { decodeDetachPayload } from '../../src/counterparty/attach-detach.js';
import { decodeMessageOutput } from '../../src/counterparty/message.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

void test('an upper-case bech32 address is refused with its canonical spelling, at sign-in and as a delivery address: the ledger would credit the unit to a string no wallet spends from', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'upper', 1);
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'upper');
  const delivery = makeWallet('p2tr', 'checkout-upper-delivery');
  const shouted = delivery.address.toUpperCase();
  assert.notEqual(shouted, delivery.address);

  for (const mode of ['detached', 'attached']) {
    const r = await quote(m, buyer, { lines: [{ listing_id: l.id }], delivery_mode: mode, delivery_address: shouted });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual([r.body.code, r.body.field, r.body.canonical_address], ['invalid_request', 'body.delivery_address', delivery.address]);
  }
  const challenge = await m.call('POST', '/v1/auth/challenge', null, { address: buyer.w.address.toUpperCase() });
  assert.deepEqual([challenge.status, challenge.body.code, challenge.body.canonical_address], [400, 'invalid_request', buyer.w.address]);
  assert.equal(await m.ctx.store.db.selectFrom('checkout_quotes').select('id').where('buyer_address', '=', buyer.w.address).executeTakeFirst(), undefined, 'nothing was quoted');

  // The canonical spelling goes through, and the detach names exactly it.
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: delivery.address, fee_rate: 2 });
  const tx = Transaction.fromPSBT(hex.decode(q.psbt_hex), READ_TX_OPTS);
  const msg = decodeMessageOutput(tx.getOutput(0).script!, hex.encode(tx.getInput(0).txid!));
  assert.equal(msg && decodeDetachPayload(msg.payload), delivery.address);
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal((await fillsOf(m, l.id))[0]?.buyer, delivery.address);
  await m.mine();
  await m.sync();
  assert.equal(await heldAt(m, delivery.address, seller.asset), 1n);
});
