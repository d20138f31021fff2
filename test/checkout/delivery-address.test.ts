/**
 * The detach destination is a string in Counterparty's ledger: the market must write the one
 * spelling the owner's wallet spends from, whatever spelling the buyer (or the session) used.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, fillsOf, heldAt, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { decodeDetachPayload } from '../../src/counterparty/attach-detach.js';
import { decodeMessageOutput } from '../../src/counterparty/message.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

void test('an upper-case bech32 delivery address is written in its canonical lower-case form: the unit lands where the wallet can spend it', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'upper', 2);
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'upper');
  const delivery = makeWallet('p2tr', 'checkout-upper-delivery');
  const shouted = delivery.address.toUpperCase();
  assert.notEqual(shouted, delivery.address);

  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: shouted, fee_rate: 2 });
  assert.deepEqual(q.delivery, { mode: 'detached', address: delivery.address });
  const tx = Transaction.fromPSBT(hex.decode(q.psbt_hex), READ_TX_OPTS);
  const msg = decodeMessageOutput(tx.getOutput(0).script!, hex.encode(tx.getInput(0).txid!));
  assert.equal(msg && decodeDetachPayload(msg.payload), delivery.address, 'the detach names the canonical address');

  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal((await fillsOf(m, l.id))[0]?.buyer, delivery.address);
  await m.mine();
  await m.sync();
  assert.equal(await heldAt(m, delivery.address, seller.asset), 1n, 'the unit is credited to the address the wallet spends from');
  assert.equal(await heldAt(m, shouted, seller.asset), 0n, 'nothing is stranded under the upper-case string');

  // Attached delivery: the output script is the same either way; the recorded address is canonical too.
  const l2 = await listUnit(m, seller, 21_000);
  const q2 = await quoteOk(m, buyer, { lines: [{ listing_id: l2.id }], delivery_mode: 'attached', delivery_address: shouted, fee_rate: 2 });
  assert.deepEqual(q2.delivery, { mode: 'attached', address: delivery.address });
});
