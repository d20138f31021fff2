/**
 * The quoted transaction as the completion reads it from the quote row and the seller halves
 * (src/modules/checkout/quoted.ts): for real quotes it is exactly the quote's PSBT's (txid and
 * every prevout), so a buyer's untouched signed PSBT passes buyerHalf's fast check without the
 * quote's PSBT; a quote it cannot read so (several buyer coins) leaves the comparison to the PSBT.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { psbtPrevouts } from '../../src/bitcoin/psbt.js';
import { CheckoutStore, quoteLines } from '../../src/modules/checkout/store.js';
import { quotedTransaction } from '../../src/modules/checkout/quoted.js';
import { buyerHalf } from '../../src/trade/signed.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

async function quotedRow(label: string, buyerFamily: 'p2wpkh' | 'p2tr', coins: number[]) {
  const s1 = await newSeller(m, 'p2wpkh', `${label}-1`);
  const s2 = await newSeller(m, 'p2tr', `${label}-2`);
  const l1 = await listUnit(m, s1, 20_000);
  const l2 = await listUnit(m, s2, 30_000);
  const buyer = await newBuyer(m, buyerFamily, label, coins);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l1.id }, { listing_id: l2.id }] });
  const store = new CheckoutStore(m.ctx.store.db);
  const row = (await store.quote(q.id as string))!;
  const byId = new Map((await store.listings(quoteLines(row).map((l) => l.listing_id))).map((l) => [l.id, l]));
  const listings = quoteLines(row).map((l) => byId.get(l.listing_id)!);
  return { q, row, store, listings, buyer };
}

void test('a one-coin quote reads as its PSBT: txid and every prevout, for P2WPKH and P2TR buyers', async () => {
  for (const family of ['p2wpkh', 'p2tr'] as const) {
    const { q, row, store, listings, buyer } = await quotedRow(`quoted-${family}`, family, [200_000]);
    const network = m.ctx.config.NETWORK;
    const quoted = quotedTransaction(row, listings, store.halves, network)!;
    assert.ok(quoted, family);
    const tx = Transaction.fromPSBT(hex.decode(row.psbt), READ_TX_OPTS);
    assert.equal(quoted.txid, row.expected_txid);
    let out = 0n;
    for (let o = 0; o < tx.outputsLength; o++) out += tx.getOutput(o).amount!;
    const known = quoted.prevouts.reduce((t, p) => t + (p.amount ?? 0n), 0n);
    const resolved = quoted.prevouts.map((p) => ({ script: p.script, amount: p.amount ?? out + quoted.fee - known }));
    assert.deepEqual(resolved, psbtPrevouts(tx).prevouts, family);
    // The buyer's signed PSBT passes without the quote's PSBT being read.
    const half = buyerHalf(signQuote(q, buyer.w), 'not a psbt', q.inputs_to_sign as number[], row.buyer_address, network, { quoted });
    assert.equal(half.view.unsignedTxid(), row.expected_txid);
  }
});

void test('a quote paid by several buyer coins is not read so: the comparison with its PSBT decides', async () => {
  const { row, store, listings } = await quotedRow('quoted-two-coins', 'p2wpkh', [30_000, 30_000]);
  assert.equal((JSON.parse(row.funding) as string[]).length, 2);
  assert.equal(quotedTransaction(row, listings, store.halves, m.ctx.config.NETWORK), undefined);
});
