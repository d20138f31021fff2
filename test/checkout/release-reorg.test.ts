/**
 * A checkout released while a reorg has its unit unconfirmed: the listing must not go back on
 * the book as if nothing happened. A reused unit waits `pending` until its asset UTXO confirms
 * again (and is checked again); an attach listing whose attach the reorg reopened ends `invalid`
 * (the draft reads withdrawn, list_again), as it would have had no buyer claimed it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { buildTx, coinOf } from '../helpers/devnet.js';
import { makeWallet } from '../helpers/wallets.js';
import { listAttached, listUnit, newSeller } from '../helpers/listing.js';
import { complete, listingRow, newBuyer, quote, quoteOk, signQuote, type Buyer } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { UpstreamUnavailable } from '../../src/chain/ports.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

let n = 0;

/** Completes the quote while the node is unreachable: journaled (502), the listing reserved, nothing in the mempool. */
async function completeUnrelayed(b: Buyer, q: Record<string, any>): Promise<string> {
  const bitcoin = m.devnet.bitcoin;
  const original = bitcoin.broadcast.bind(bitcoin);
  bitcoin.broadcast = async () => {
    bitcoin.broadcast = original;
    throw new UpstreamUnavailable('bitcoin', 'connect ECONNRESET 127.0.0.1:8332');
  };
  const signed = signQuote(q, b.w);
  const r = await complete(m, b, q.id, signed);
  assert.deepEqual([r.status, r.body.code], [502, 'broadcast_unknown'], JSON.stringify(r.body));
  return signed;
}

/** The buyer spends the quote's input 0 elsewhere (in the mempool): the journaled checkout can only conflict. */
async function spendInput0(b: Buyer, q: Record<string, any>): Promise<void> {
  const input0 = Transaction.fromPSBT(hex.decode(q.psbt_hex), READ_TX_OPTS).getInput(0);
  const coin = coinOf(m.devnet, hex.encode(input0.txid!), input0.index!);
  const away = makeWallet('p2wpkh', `release-reorg-away-${++n}`);
  await m.devnet.bitcoin.broadcast(buildTx([{ wallet: b.w, coin }], [{ script: away.script, amount: coin.amount - 1_000n }]));
}

void test('reuse: a checkout released while a reorg has the asset UTXO unconfirmed, after an unknown broadcast, leaves the listing exposed, not on the book, even once the UTXO confirms again', async () => {
  const buyer = await newBuyer(m, 'p2wpkh', 'rr-reuse');
  const seller = await newSeller(m, 'p2wpkh', 'rr-reuse');
  const l = await listUnit(m, seller, 20_000); // the attach is the newest block
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 2 });
  const signed = await completeUnrelayed(buyer, q);
  await spendInput0(buyer, q);

  await m.devnet.reorg(1); // the asset UTXO's transaction goes back to the mempool
  await m.ctx.indexer.run(); // the indexer sees the reorg before recovery runs
  const reserved = await listingRow(m, l.id);
  assert.deepEqual([reserved.state, reserved.utxo_height], ['reserved', null]);

  // The buyer repeats the same bytes: the node reports the conflict and every claim is released.
  const r = await complete(m, buyer, q.id, signed);
  assert.deepEqual([r.status, r.body.code, r.body.claims_released, typeof r.body.mempool_reason], [409, 'state_changed', true, 'string'], JSON.stringify(r.body));
  // The first broadcast's outcome was unknown: the bytes (and the seller's half) may be out.
  const exposed = await listingRow(m, l.id);
  assert.deepEqual([exposed.state, exposed.exposure_reason], ['exposed', 'checkout_conflicted'], 'an exposed unit is not back on the book');
  const other = await newBuyer(m, 'p2wpkh', 'rr-reuse-other');
  const refused = await quote(m, other, { lines: [{ listing_id: l.id }], fee_rate: 2 });
  assert.deepEqual([refused.status, refused.body.code, refused.body.state], [409, 'state_changed', 'exposed'], JSON.stringify(refused.body));

  await m.mine(); // the asset UTXO confirms again, holding exactly the unit
  await m.sync();
  const still = await listingRow(m, l.id);
  assert.equal(still.state, 'exposed', 'never silently back at the exposed price');
  assert.ok(still.utxo_height !== null);
});

void test('attach: a checkout released after a reorg reopened the attach ends the listing invalid (withdrawn, list_again), never active', async () => {
  const buyer = await newBuyer(m, 'p2wpkh', 'rr-attach');
  const seller = await newSeller(m, 'p2wpkh', 'rr-attach');
  const { draftId, listingId } = await listAttached(m, seller, 20_000);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: listingId }], fee_rate: 2 });
  const signed = await completeUnrelayed(buyer, q);
  await spendInput0(buyer, q);

  await m.devnet.reorg(1); // the attach goes back to the mempool
  await m.ctx.indexer.run();
  assert.equal((await listingRow(m, listingId)).state, 'reserved', 'a claimed listing stays the checkout\'s to settle');

  const r = await complete(m, buyer, q.id, signed);
  assert.deepEqual([r.status, r.body.code, r.body.claims_released, typeof r.body.mempool_reason], [409, 'state_changed', true, 'string'], JSON.stringify(r.body));
  const ended = await listingRow(m, listingId);
  assert.deepEqual([ended.state, ended.end_reason, ended.signed_psbt], ['ended', 'invalid', null]);
  const draft = (await m.call('GET', `/v1/listing-preflights/${draftId}`, seller.token)).body.result;
  assert.deepEqual([draft.status, draft.next_action], ['withdrawn', 'list_again']);
  const other = await newBuyer(m, 'p2wpkh', 'rr-attach-other');
  const refused = await quote(m, other, { lines: [{ listing_id: listingId }], fee_rate: 2 });
  assert.deepEqual([refused.status, refused.body.code], [409, 'state_changed'], JSON.stringify(refused.body));

  await m.mine(); // the attach confirms again: the listing stays ended (the unit must be listed again)
  await m.sync();
  assert.equal((await listingRow(m, listingId)).state, 'ended');
});
