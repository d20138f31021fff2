/**
 * A completion between a reorg on the node and the indexer's rollback of it (simulated day 9101):
 * the unit's confirmation is not final, so the completion asks the node (fresh-units.ts). An
 * attach or a reused UTXO back in the mempool is 409 checkout_changed, with nothing claimed and
 * nothing broadcast, where before the listing, still `active` in the market's rows, was sold. A
 * unit whose confirmation is final is not asked about.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { listAttached, listUnit, newSeller } from '../helpers/listing.js';
import { complete, listingRow, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { FINALITY_DEPTH } from '../../src/modules/transactions/index.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

/** Runs `fn` counting the node's getTxOut and getBestBlockHash calls. */
async function countingCalls<T>(fn: () => Promise<T>): Promise<{ txOut: number; best: number; out: T }> {
  const bitcoin = m.devnet.bitcoin;
  const { getTxOut, getBestBlockHash } = bitcoin;
  const calls = { txOut: 0, best: 0 };
  bitcoin.getTxOut = (...args) => {
    calls.txOut++;
    return getTxOut.apply(bitcoin, args);
  };
  bitcoin.getBestBlockHash = () => {
    calls.best++;
    return getBestBlockHash.apply(bitcoin);
  };
  try {
    const out = await fn();
    return { ...calls, out };
  } finally {
    Object.assign(bitcoin, { getTxOut, getBestBlockHash });
  }
}

async function refusedInTheWindow(listingId: string, label: string): Promise<void> {
  const buyer = await newBuyer(m, 'p2wpkh', label);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: listingId }], fee_rate: 2 });
  // Back to before the unit's block (the buyer's funding mined blocks since): its transaction goes
  // back to the mempool, and the market's indexer has not seen the reorg yet.
  const l = await listingRow(m, listingId);
  const unit = await m.devnet.bitcoin.getTxOut(l.utxo_txid, l.utxo_vout, true);
  assert.ok(unit && unit.confirmations >= 1 && unit.confirmations < FINALITY_DEPTH + 3, JSON.stringify(unit));
  await m.devnet.reorg(unit.confirmations);
  assert.equal((await listingRow(m, listingId)).state, 'active', 'the market still reads the listing active');
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.deepEqual([r.status, r.body.code, r.body.listing_id], [409, 'checkout_changed', listingId], JSON.stringify(r.body));
  assert.equal((await listingRow(m, listingId)).state, 'active', 'nothing claimed');
  const settlements = await m.ctx.store.db.selectFrom('settlements').select('id').where('ref_id', '=', q.id).execute();
  assert.deepEqual(settlements, [], 'nothing journaled');
  assert.equal(await m.devnet.bitcoin.getMempoolEntry(q.expected_txid as string), null, 'nothing broadcast');
}

void test('attach: a completion after a reorg put the attach back in the mempool, before the indexer rolled it back, is 409 checkout_changed, nothing claimed or broadcast', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'rw-attach');
  const { listingId } = await listAttached(m, seller, 20_000);
  await refusedInTheWindow(listingId, 'rw-attach');
  await m.sync(); // the rollback: the reopened attach ends the listing (listings/watcher.ts)
  assert.equal((await listingRow(m, listingId)).state, 'ended');
});

void test('reuse: the same with a reused unit whose UTXO a reorg unconfirmed', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'rw-reuse');
  const l = await listUnit(m, seller, 20_000); // its asset UTXO is in the newest block
  await refusedInTheWindow(l.id, 'rw-reuse');
  await m.sync();
  assert.equal((await listingRow(m, l.id)).state, 'pending', 'off the book until it confirms again');
});

void test('fresh units: one best-block call when the indexer has read the node\'s tip, each unit asked when it has not; final units: no call', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'rw-final', 3);
  const buyer = await newBuyer(m, 'p2wpkh', 'rw-final', [1_000_000, 1_000_000, 1_000_000]);
  const buy = async (listingId: string) => {
    const q = await quoteOk(m, buyer, { lines: [{ listing_id: listingId }], fee_rate: 2 });
    const r = await countingCalls(() => complete(m, buyer, q.id, signQuote(q, buyer.w)));
    assert.equal(r.out.status, 200, JSON.stringify(r.out.body));
    return { txOut: r.txOut, best: r.best };
  };

  const synced = await listUnit(m, seller, 20_000);
  await m.sync();
  assert.deepEqual(await buy(synced.id), { txOut: 0, best: 1 }, 'the indexer is at the node\'s tip');

  const behind = await listUnit(m, seller, 21_000);
  await m.sync();
  await m.mine(); // a block the indexer has not read yet
  assert.deepEqual(await buy(behind.id), { txOut: 1, best: 1 }, 'the unit itself is asked about');

  const old = await listUnit(m, seller, 22_000);
  await m.mine(FINALITY_DEPTH);
  await m.sync();
  assert.deepEqual(await buy(old.id), { txOut: 0, best: 0 }, 'a final unit costs no call');
});
