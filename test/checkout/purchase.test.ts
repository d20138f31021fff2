/** Purchases end to end on the devnet with real keys: detached, multi-seller, attached, asset lines. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, fillsOf, heldAt, heldOn, listingRow, newBuyer, quoteOk, readOp, signQuote } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { devnetFeeAddress } from '../../src/trade/fee-address.js';
import { decodeDetachPayload } from '../../src/counterparty/attach-detach.js';
import { decodeMessageOutput } from '../../src/counterparty/message.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const feeAddress = () => devnetFeeAddress('regtest');
const psbtOf = (h: string) => Transaction.fromPSBT(hex.decode(h), READ_TX_OPTS);
const outAddress = async (txid: string, vout: number) => (await m.ctx.chain.bitcoin.getTxOut(txid, vout, true))?.address;

void test('a single item, detached to a P2PKH address: quote, sign, complete, mine; the unit lands at the delivery address', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'single');
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'single');
  const delivery = makeWallet('p2pkh', 'checkout-single-delivery');

  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: delivery.address, fee_rate: 2 });
  assert.equal(q.status, 'quoted');
  assert.equal(q.reserves_inventory, false);
  assert.deepEqual(q.delivery, { mode: 'detached', address: delivery.address });
  assert.equal(q.buyer_address, buyer.w.address);
  assert.deepEqual(q.inputs_to_sign, [0]);
  assert.equal(q.sighash, 'ALL');
  assert.equal(q.expires_at, Math.floor(m.clock.now() / 1000) + 600);
  assert.deepEqual(q.lines, [{
    listing_id: l.id, asset: seller.asset, asset_longname: null, quantity_raw: '1', seller: seller.w.address, price_sats: 20_000,
    platform_fee_sats: 546, utxo_txid: l.utxo_txid, utxo_vout: l.utxo_vout,
  }]);
  const t = q.totals;
  assert.deepEqual([t.price_sats, t.platform_fee_sats, t.delivery_sats], [20_000, 546, 0]);
  assert.equal(t.total_sats, t.price_sats + t.platform_fee_sats + t.network_fee_sats);
  assert.equal(t.asset_utxo_sats, 330, "the unit's own sats come back to the buyer");

  // The layout: detach message at out 0 keyed by input 0, the seller's pair at 1/1, fee, change.
  const tx = psbtOf(q.psbt_hex);
  assert.equal(tx.id, q.expected_txid);
  assert.equal(tx.inputsLength, 2);
  assert.equal(hex.encode(tx.getInput(1).txid!), l.utxo_txid);
  assert.equal(tx.getInput(1).partialSig, undefined, 'the seller signature is not published in the quote');
  const msg = decodeMessageOutput(tx.getOutput(0).script!, hex.encode(tx.getInput(0).txid!));
  assert.ok(msg && decodeDetachPayload(msg.payload) === delivery.address, 'out 0 detaches to the delivery address');
  assert.equal(tx.getOutput(1).amount, 20_000n);
  assert.equal(tx.getOutput(2).amount, 546n);
  const inputs = Number(tx.getInput(0).witnessUtxo!.amount) + 330;
  const outputs = Array.from({ length: tx.outputsLength }, (_, i) => Number(tx.getOutput(i).amount)).reduce((a, b) => a + b, 0);
  assert.equal(inputs - outputs, t.network_fee_sats, 'the fee is what inputs leave over');
  assert.equal(Number(tx.getInput(0).witnessUtxo!.amount) - Number(tx.getOutput(3).amount), t.total_sats - t.asset_utxo_sats, "the buyer's coins pay the total less the unit's sats");

  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual([r.body.result.status, r.body.result.txid, r.body.result.psbt_hex], ['broadcast', q.expected_txid, null]);
  assert.equal((await listingRow(m, l.id)).state, 'reserved');
  const [pending] = await fillsOf(m, l.id);
  assert.deepEqual([pending?.state, pending?.buyer, pending?.payer, pending?.txid, pending?.price_sats, pending?.platform_fee_sats], ['pending', delivery.address, buyer.w.address, q.expected_txid, 20_000, 546]);
  // A real, standard transaction in the mempool: its vsize keeps the quoted rate.
  const entry = await m.ctx.chain.bitcoin.getMempoolEntry(q.expected_txid);
  assert.ok(entry && entry.fee_sats / entry.vsize >= 2, JSON.stringify(entry));

  await m.mine();
  await m.sync();
  assert.equal(await heldAt(m, delivery.address, seller.asset), 1n);
  assert.equal(await heldOn(m, `${l.utxo_txid}:${l.utxo_vout}`, seller.asset), 0n);
  assert.equal(await outAddress(q.expected_txid, 1), seller.w.address);
  assert.equal((await m.ctx.chain.bitcoin.getTxOut(q.expected_txid, 1, true))?.value_sats, 20_000);
  assert.equal(await outAddress(q.expected_txid, 2), feeAddress());
  const [fill] = await fillsOf(m, l.id);
  const tip = await m.ctx.indexer.cursor();
  assert.deepEqual([fill?.state, fill?.block_index, fill?.confirmed_at], ['confirmed', tip!.height, Math.floor(m.clock.now() / 1000)]);
  const sold = await listingRow(m, l.id);
  assert.deepEqual([sold.state, sold.signed_psbt, sold.ended_at], ['sold', null, Math.floor(m.clock.now() / 1000)]);
  const op = await readOp(m, buyer, q.id);
  assert.equal(op.status, 200);
  assert.deepEqual([op.body.result.status, op.body.result.confirmations, op.body.result.block_index, op.body.result.claims_released], ['confirmed', 1, tip!.height, false]);
});

void test('a cart from two sellers (P2TR and P2WPKH) paid by a P2TR buyer: one detach delivers every unit', async () => {
  const tr = await newSeller(m, 'p2tr', 'cart-tr');
  const wpkh = await newSeller(m, 'p2wpkh', 'cart-wpkh', 2);
  const a = await listUnit(m, tr, 30_000);
  const b = await listUnit(m, wpkh, 15_000);
  const c = await listUnit(m, wpkh, 16_000);
  const buyer = await newBuyer(m, 'p2tr', 'cart', [40_000, 30_000]);

  const wrongKey = await m.call('POST', '/v1/checkout/quotes', buyer.token, { lines: [{ listing_id: a.id }], buyer_tap_internal_key: hex.encode(tr.w.xOnly) });
  assert.deepEqual([wrongKey.status, wrongKey.body.code, wrongKey.body.field], [400, 'invalid_request', 'body.buyer_tap_internal_key']);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: a.id }, { listing_id: b.id }, { listing_id: c.id }], buyer_tap_internal_key: hex.encode(buyer.w.xOnly) });
  const tx = psbtOf(q.psbt_hex);
  assert.deepEqual([0, 4].map((i) => hex.encode(tx.getInput(i).tapInternalKey!)), [hex.encode(buyer.w.xOnly), hex.encode(buyer.w.xOnly)]);
  assert.equal(q.fee_rate, 3, "default: the devnet's half-hour estimate");
  assert.deepEqual(q.lines.map((x: any) => x.listing_id), [a.id, b.id, c.id]);
  assert.deepEqual(q.inputs_to_sign, [0, 4], 'two buyer coins: input 0 and one after the three pairs');
  assert.equal(q.totals.platform_fee_sats, 600 + 546 + 546);
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w, SigHash.DEFAULT));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const entry = await m.ctx.chain.bitcoin.getMempoolEntry(q.expected_txid);
  assert.equal(entry?.fee_sats, q.totals.network_fee_sats);
  assert.ok(entry && entry.fee_sats / entry.vsize >= 3 && entry.fee_sats / entry.vsize < 3.2, `rate ${entry?.fee_sats}/${entry?.vsize}`);

  await m.mine();
  await m.sync();
  assert.equal(await heldAt(m, buyer.w.address, tr.asset), 1n);
  assert.equal(await heldAt(m, buyer.w.address, wpkh.asset), 2n);
  assert.equal(await outAddress(q.expected_txid, 1), tr.w.address);
  assert.equal(await outAddress(q.expected_txid, 2), wpkh.w.address);
  assert.equal(await outAddress(q.expected_txid, 3), wpkh.w.address);
  for (const l of [a, b, c]) {
    assert.equal((await listingRow(m, l.id)).state, 'sold');
    assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['confirmed']);
  }
});

void test('attached delivery of one item: the unit moves to a 330-sat output 0 owned by the buyer, no message', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'attached');
  const l = await listUnit(m, seller, 12_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'attached');
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_mode: 'attached' });
  assert.deepEqual(q.delivery, { mode: 'attached', address: buyer.w.address });
  assert.equal(q.totals.delivery_sats, 330);
  assert.equal(q.totals.total_sats, 12_000 + 546 + 330 + q.totals.network_fee_sats);
  const tx = psbtOf(q.psbt_hex);
  assert.equal(tx.getOutput(0).amount, 330n);
  assert.equal(hex.encode(tx.getOutput(0).script!), hex.encode(buyer.w.script));
  for (let i = 0; i < tx.outputsLength; i++) assert.notEqual(tx.getOutput(i).script![0], 0x6a, 'no OP_RETURN');

  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await m.mine();
  await m.sync();
  assert.equal(await heldOn(m, `${q.expected_txid}:0`, seller.asset), 1n);
  assert.equal(await outAddress(q.expected_txid, 0), buyer.w.address);
  assert.equal(await heldAt(m, buyer.w.address, seller.asset), 0n, 'attached, not detached');
  const [fill] = await fillsOf(m, l.id);
  assert.deepEqual([fill?.state, fill?.delivery_mode], ['confirmed', 'attached']);
});

void test('an {asset, quantity} line picks the cheapest fillable listings, never the caller\'s own', async () => {
  const s1 = await newSeller(m, 'p2wpkh', 'cheap-1', 3);
  const s2 = await newSeller(m, 'p2tr', 'cheap-2', 1, s1.asset);
  const dear = await listUnit(m, s1, 30_000);
  const cheap = await listUnit(m, s1, 9_000);
  const mid = await listUnit(m, s2, 12_000);
  await listUnit(m, s1, 50_000);
  // The buyer sells the cheapest unit of all: it is never picked for the buyer.
  const buyerSeller = await newSeller(m, 'p2wpkh', 'cheap-buyer', 1, s1.asset);
  await m.fund(buyerSeller.w, 200_000);
  const mine = await listUnit(m, buyerSeller, 5_000);
  const buyer = { w: buyerSeller.w, token: buyerSeller.token };

  const q = await quoteOk(m, buyer, { lines: [{ asset: s1.asset, quantity: 3 }] });
  assert.deepEqual(q.lines.map((x: any) => [x.listing_id, x.price_sats]), [[cheap.id, 9_000], [mid.id, 12_000], [dear.id, 30_000]]);
  assert.ok(!q.lines.some((x: any) => x.listing_id === mine.id));
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
});
