/** Completion refusals, owner checks, repeats and races, with real signatures. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { taprootTweakPrivKey } from '@scure/btc-signer/utils.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { editPsbt, openMarket, signPsbt, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, fillsOf, listingRow, newBuyer, quoteOk, readOp, signQuote, type Buyer } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { buildListingPsbt } from '../../src/modules/listings/templates.js';
import { CheckoutCompletion } from '../../src/modules/checkout/complete.js';
import { CheckoutStore } from '../../src/modules/checkout/store.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const settlementsFor = (quoteId: string) => m.ctx.store.db.selectFrom('settlements').selectAll().where('ref_id', '=', quoteId).execute();
const inMempool = async (txid: string) => (await m.ctx.chain.bitcoin.getTransaction(txid)) !== null;

/** A listed unit and a buyer holding a fresh quote for it. */
async function quoted(label: string, buyerFamily: 'p2wpkh' | 'p2tr' = 'p2wpkh') {
  const seller = await newSeller(m, 'p2wpkh', label);
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, buyerFamily, label);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }] });
  return { seller, l, buyer, q };
}

/** The same PSBT with its inputs in another order (the buyer input then signed at its new index). */
function reorder(psbtHex: string, order: number[]): Transaction {
  const t = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  const out = new Transaction({ version: t.version, lockTime: t.lockTime, allowUnknownOutputs: true });
  for (const i of order) out.addInput(t.getInput(i));
  for (let i = 0; i < t.outputsLength; i++) out.addOutput(t.getOutput(i));
  return out;
}

/** A signature by `signer` over what `buyer` should have signed, presented under the buyer's key. */
function wrongKeySignature(psbtHex: string, buyer: Buyer): string {
  const other = makeWallet('p2wpkh', 'complete-wrong-key');
  const forged = signPsbt(editPsbt(psbtHex, (tx) => tx.updateInput(0, { witnessUtxo: { script: other.script, amount: tx.getInput(0).witnessUtxo!.amount } }, true)), other, [0], SigHash.ALL);
  const sig = Transaction.fromPSBT(hex.decode(forged), READ_TX_OPTS).getInput(0).partialSig![0]![1];
  return editPsbt(psbtHex, (tx) => tx.updateInput(0, { partialSig: [[buyer.w.publicKey, sig]] }, true));
}

void test('tampered, unsigned or wrongly signed PSBTs: template_mismatch, signature_invalid, invalid_transaction; nothing is claimed', async () => {
  const { l, buyer, q } = await quoted('tamper');
  const stranger = makeWallet('p2wpkh', 'complete-stranger');
  const lastOut = Transaction.fromPSBT(hex.decode(q.psbt_hex), READ_TX_OPTS).outputsLength - 1;
  const extraCoin = await m.fund(buyer.w, 5_000);
  const swapped = reorder(q.psbt_hex, [1, 0]);
  const dropped = reorder(q.psbt_hex, [0, 1]);
  const droppedOut = new Transaction({ version: dropped.version, lockTime: dropped.lockTime, allowUnknownOutputs: true });
  for (let i = 0; i < dropped.inputsLength; i++) droppedOut.addInput(dropped.getInput(i));
  for (let i = 0; i < lastOut; i++) droppedOut.addOutput(dropped.getOutput(i));

  const cases: Array<[string, string, number, string]> = [
    ['a changed output amount', signQuote({ ...q, psbt_hex: editPsbt(q.psbt_hex, (tx) => tx.updateOutput(lastOut, { amount: tx.getOutput(lastOut).amount! - 1_000n })) }, buyer.w), 422, 'template_mismatch'],
    ['a changed output script', signQuote({ ...q, psbt_hex: editPsbt(q.psbt_hex, (tx) => tx.updateOutput(lastOut, { script: stranger.script })) }, buyer.w), 422, 'template_mismatch'],
    ['an extra output', signQuote({ ...q, psbt_hex: editPsbt(q.psbt_hex, (tx) => tx.addOutput({ script: stranger.script, amount: 1_000n })) }, buyer.w), 422, 'template_mismatch'],
    ['a missing output', signPsbt(hex.encode(droppedOut.toPSBT()), buyer.w, [0], SigHash.ALL), 422, 'template_mismatch'],
    ['an extra input', signPsbt(editPsbt(q.psbt_hex, (tx) => tx.addInput({ txid: extraCoin.txid, index: extraCoin.vout, witnessUtxo: { script: buyer.w.script, amount: extraCoin.amount } })), buyer.w, [0, 2], SigHash.ALL), 422, 'template_mismatch'],
    ['swapped inputs', signPsbt(hex.encode(swapped.toPSBT()), buyer.w, [1], SigHash.ALL), 422, 'template_mismatch'],
    ['a changed sequence', signQuote({ ...q, psbt_hex: editPsbt(q.psbt_hex, (tx) => tx.updateInput(0, { sequence: 1 })) }, buyer.w), 422, 'template_mismatch'],
    ['another prevout amount', signQuote({ ...q, psbt_hex: editPsbt(q.psbt_hex, (tx) => tx.updateInput(1, { witnessUtxo: { script: tx.getInput(1).witnessUtxo!.script, amount: 1n } }, true)) }, buyer.w), 422, 'template_mismatch'],
    ['unsigned', q.psbt_hex, 422, 'signature_invalid'],
    ['signed by another key', wrongKeySignature(q.psbt_hex, buyer), 422, 'signature_invalid'],
    ['signed NONE', signQuote(q, buyer.w, SigHash.NONE), 422, 'signature_invalid'],
    ['signed SINGLE|ANYONECANPAY', signQuote(q, buyer.w, SigHash.SINGLE_ANYONECANPAY), 422, 'signature_invalid'],
    ['signed ALL|ANYONECANPAY', signQuote(q, buyer.w, SigHash.ALL_ANYONECANPAY), 422, 'signature_invalid'],
    ['not a PSBT', '70736274ff00', 422, 'invalid_transaction'],
    ['not hex', 'zz', 400, 'invalid_request'],
  ];
  for (const [what, psbt, status, code] of cases) {
    const r = await complete(m, buyer, q.id, psbt);
    assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, code, `${what}: ${JSON.stringify(r.body)}`);
  }
  assert.equal((await listingRow(m, l.id)).state, 'active');
  assert.deepEqual(await settlementsFor(q.id), []);
  assert.deepEqual(await fillsOf(m, l.id), []);
  const ok = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(ok.status, 200, 'the honest signature still completes');
});

void test('a P2TR buyer: DEFAULT and ALL both verify; a P2TR signature by another key is signature_invalid', async () => {
  const a = await quoted('tr-default', 'p2tr');
  const other = makeWallet('p2tr', 'complete-tr-other');
  const forged = signPsbt(editPsbt(a.q.psbt_hex, (tx) => tx.updateInput(0, { witnessUtxo: { script: other.script, amount: tx.getInput(0).witnessUtxo!.amount } }, true)), other, [0], SigHash.DEFAULT);
  const sig = Transaction.fromPSBT(hex.decode(forged), READ_TX_OPTS).getInput(0).tapKeySig!;
  const bad = await complete(m, a.buyer, a.q.id, editPsbt(a.q.psbt_hex, (tx) => tx.updateInput(0, { tapKeySig: sig }, true)));
  assert.deepEqual([bad.status, bad.body.code], [422, 'signature_invalid']);
  assert.equal((await complete(m, a.buyer, a.q.id, signQuote(a.q, a.buyer.w, SigHash.DEFAULT))).status, 200);
  const b = await quoted('tr-all', 'p2tr');
  assert.equal((await complete(m, b.buyer, b.q.id, signQuote(b.q, b.buyer.w, SigHash.ALL))).status, 200);
});

/** The quote PSBT with input 0 finalized as a valid taproot key-path spend carrying an annex (BIP-341). */
function signedWithAnnex(psbtHex: string, w: Buyer['w']): string {
  return editPsbt(psbtHex, (tx) => {
    const ins = Array.from({ length: tx.inputsLength }, (_, i) => tx.getInput(i).witnessUtxo!);
    const annex = new Uint8Array([0x50, 0x01, 0x02, 0x03]);
    const msg = tx.preimageWitnessV1(0, ins.map((p) => p.script), SigHash.DEFAULT, ins.map((p) => p.amount), undefined, undefined, undefined, annex);
    tx.updateInput(0, { finalScriptWitness: [schnorr.sign(msg, taprootTweakPrivKey(w.privateKey)), annex] }, true);
  });
}

void test('a P2TR buyer input 0 whose witness Counterparty cannot read a flag from (an annex makes it 2 items) is signature_invalid, nothing journaled', async () => {
  const { l, buyer, q } = await quoted('tr-annex', 'p2tr');
  const r = await complete(m, buyer, q.id, signedWithAnnex(q.psbt_hex, buyer.w));
  assert.deepEqual([r.status, r.body.code], [422, 'signature_invalid'], JSON.stringify(r.body));
  assert.match(r.body.error, /input 0/);
  assert.deepEqual(await settlementsFor(q.id), []);
  assert.equal((await listingRow(m, l.id)).state, 'active');
  assert.equal((await complete(m, buyer, q.id, signQuote(q, buyer.w, SigHash.DEFAULT))).status, 200);
});

void test('owner checks: 401 without a session, 404 for a foreign or missing quote (the same body)', async () => {
  const { buyer, q } = await quoted('owner');
  const other = await newBuyer(m, 'p2wpkh', 'owner-other');
  const signed = signQuote(q, buyer.w);
  const anon = await m.call('POST', `/v1/checkout/quotes/${q.id}/complete`, null, { psbt_hex: signed });
  assert.deepEqual([anon.status, anon.body.code], [401, 'unauthenticated']);
  assert.deepEqual([(await m.call('GET', `/v1/checkout/quotes/${q.id}`, null)).status], [401]);
  const foreign = await complete(m, other, q.id, signed);
  const missing = await complete(m, other, 'cq_missing', signed);
  assert.equal(foreign.status, 404);
  assert.deepEqual(foreign.body, missing.body);
  const foreignRead = await readOp(m, other, q.id);
  const missingRead = await readOp(m, other, 'cq_missing');
  assert.equal(foreignRead.status, 404);
  assert.deepEqual(foreignRead.body, missingRead.body);
  const mine = await readOp(m, buyer, q.id);
  assert.deepEqual([mine.status, mine.body.result.status, mine.body.result.psbt_hex], [200, 'quoted', q.psbt_hex]);
});

void test('a quote expires after 10 minutes: 410 expired, and reads expired', async () => {
  const { l, buyer, q } = await quoted('expiry');
  m.clock.advance(600_000);
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.deepEqual([r.status, r.body.code], [410, 'expired']);
  const op = await readOp(m, buyer, q.id);
  assert.deepEqual([op.body.result.status, op.body.result.psbt_hex], ['expired', null]);
  assert.equal((await listingRow(m, l.id)).state, 'active');
});

void test('checkout_changed after a reprice or a delist: nothing is written or broadcast', async () => {
  const a = await quoted('reprice');
  // The seller reprices with a finalized half (a wallet may return finalized witnesses).
  const half = editPsbt(
    signPsbt(buildListingPsbt({ txid: a.l.utxo_txid, vout: a.l.utxo_vout, utxoValueSats: 330, sellerScript: a.seller.w.script, priceSats: 25_000 }), a.seller.w, [0], SigHash.SINGLE_ANYONECANPAY),
    (tx) => {
      // scure's finalizer refuses a half whose output exceeds its input; write the witness by hand.
      const [pub, sig] = tx.getInput(0).partialSig![0]!;
      tx.updateInput(0, { finalScriptWitness: [sig, pub], partialSig: undefined }, true);
    },
  );
  assert.equal(Transaction.fromPSBT(hex.decode(half), READ_TX_OPTS).getInput(0).partialSig, undefined);
  assert.equal((await m.call('POST', `/v1/listings/${a.l.id}/reprice`, a.seller.token, { psbt_hex: half })).status, 200);
  const r1 = await complete(m, a.buyer, a.q.id, signQuote(a.q, a.buyer.w));
  assert.deepEqual([r1.status, r1.body.code, r1.body.listing_id], [409, 'checkout_changed', a.l.id]);
  const row = await listingRow(m, a.l.id);
  assert.deepEqual([row.state, row.price_sats, row.version], ['active', 25_000, 2]);
  assert.deepEqual(await settlementsFor(a.q.id), []);
  assert.equal(await inMempool(a.q.expected_txid), false);
  // A buyer who read the old price and says so is told the listing moved, before any PSBT.
  const stale = await m.call('POST', '/v1/checkout/quotes', a.buyer.token, { lines: [{ listing_id: a.l.id, max_price_sats: 24_999 }] });
  assert.deepEqual(
    [stale.status, stale.body.code, stale.body.listing_id, stale.body.price_sats, stale.body.max_price_sats, stale.body.field],
    [409, 'state_changed', a.l.id, 25_000, 24_999, 'body.lines.0.max_price_sats'],
  );
  // A fresh quote at the new price completes.
  const again = await quoteOk(m, a.buyer, { lines: [{ listing_id: a.l.id, max_price_sats: 25_000 }] });
  assert.equal(again.totals.price_sats, 25_000);
  assert.equal((await complete(m, a.buyer, again.id, signQuote(again, a.buyer.w))).status, 200);
  await m.mine();
  await m.sync();
  assert.equal((await listingRow(m, a.l.id)).state, 'sold', "the stored finalized half merged into a valid transaction");
  assert.equal((await m.ctx.chain.bitcoin.getTxOut(again.expected_txid, 1, true))?.value_sats, 25_000);

  const b = await quoted('delist');
  assert.equal((await m.call('POST', `/v1/listings/${b.l.id}/delist`, b.seller.token)).status, 200);
  const r2 = await complete(m, b.buyer, b.q.id, signQuote(b.q, b.buyer.w));
  assert.deepEqual([r2.status, r2.body.code, r2.body.listing_id], [409, 'checkout_changed', b.l.id]);
  assert.deepEqual(await fillsOf(m, b.l.id), []);
  assert.equal(await inMempool(b.q.expected_txid), false);
});

void test('the same signed bytes again are idempotent (one settlement); other bytes for a completed quote are 409 state_changed', async () => {
  const { l, buyer, q } = await quoted('repeat');
  const signed = signQuote(q, buyer.w);
  const first = await complete(m, buyer, q.id, signed);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  // The answer is built from the rows the completion wrote (not read back): it is what a read says.
  assert.deepEqual((await readOp(m, buyer, q.id)).body, first.body);
  // The first relay is counted in the journal row itself, once.
  assert.deepEqual((await settlementsFor(q.id)).map((s) => [s.state, s.attempts]), [['relayed', 1]]);
  const again = await complete(m, buyer, q.id, signed);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.deepEqual(again.body, first.body);
  const finalized = editPsbt(signed, (tx) => tx.finalizeIdx(0));
  const other = await complete(m, buyer, q.id, finalized);
  assert.deepEqual([other.status, other.body.code], [409, 'state_changed']);
  assert.equal((await settlementsFor(q.id)).length, 1);
  assert.equal((await fillsOf(m, l.id)).length, 1);

  await m.mine();
  await m.sync();
  const late = await complete(m, buyer, q.id, signed);
  assert.deepEqual([late.status, late.body.result.status], [200, 'confirmed']);
  // After the quote's expiry the same bytes still answer the operation.
  m.clock.advance(700_000);
  assert.equal((await complete(m, buyer, q.id, signed)).status, 200);
});

void test('a finalized PSBT is accepted as well as partial signatures', async () => {
  const { buyer, q } = await quoted('finalized');
  const r = await complete(m, buyer, q.id, editPsbt(signQuote(q, buyer.w), (tx) => tx.finalizeIdx(0)));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(await inMempool(q.expected_txid), true);
});

void test('two buyers complete quotes for the same listing at once: exactly one wins; nothing is broadcast for the loser', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'race');
  const l = await listUnit(m, seller, 20_000);
  const [b1, b2] = [await newBuyer(m, 'p2wpkh', 'race-1'), await newBuyer(m, 'p2tr', 'race-2')];
  const [q1, q2] = [await quoteOk(m, b1, { lines: [{ listing_id: l.id }] }), await quoteOk(m, b2, { lines: [{ listing_id: l.id }] })];
  const replies = await Promise.all([complete(m, b1, q1.id, signQuote(q1, b1.w)), complete(m, b2, q2.id, signQuote(q2, b2.w))]);
  assert.deepEqual(replies.map((r) => r.status).sort(), [200, 409], JSON.stringify(replies.map((r) => r.body)));
  const loser = replies.findIndex((r) => r.status === 409);
  assert.equal(replies[loser]!.body.code, 'checkout_changed');
  const [win, lose] = loser === 0 ? [q2, q1] : [q1, q2];
  const settlements = await m.ctx.store.db.selectFrom('settlements').selectAll().where('ref_id', 'in', [q1.id, q2.id]).execute();
  assert.deepEqual(settlements.map((s) => s.ref_id), [win.id]);
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.txid), [win.expected_txid]);
  assert.equal(await inMempool(win.expected_txid), true);
  assert.equal(await inMempool(lose.expected_txid), false);
  assert.equal((await listingRow(m, l.id)).state, 'reserved');

  // The same quote's identical bytes fired at once: one settlement, both answered with it.
  const s2 = await newSeller(m, 'p2wpkh', 'race-same');
  const l2 = await listUnit(m, s2, 20_000);
  const b3 = await newBuyer(m, 'p2wpkh', 'race-3');
  const q3 = await quoteOk(m, b3, { lines: [{ listing_id: l2.id }] });
  const signed = signQuote(q3, b3.w);
  const same = await Promise.all([complete(m, b3, q3.id, signed), complete(m, b3, q3.id, signed), complete(m, b3, q3.id, signed)]);
  assert.deepEqual(same.map((r) => r.status), [200, 200, 200], JSON.stringify(same.map((r) => r.body)));
  assert.equal((await settlementsFor(q3.id)).length, 1);

  // The interleaving that timing rarely hits: a repeat that read the quote while it was still
  // `quoted`, and reaches the listings after the winner reserved them, is still a repeat.
  const s4 = await newSeller(m, 'p2wpkh', 'race-stale');
  const l4 = await listUnit(m, s4, 20_000);
  const b4 = await newBuyer(m, 'p2wpkh', 'race-4');
  const q4 = await quoteOk(m, b4, { lines: [{ listing_id: l4.id }] });
  const store = new CheckoutStore(m.ctx.store.db);
  const stale = (await store.quote(q4.id))!;
  const signed4 = signQuote(q4, b4.w);
  assert.equal((await complete(m, b4, q4.id, signed4)).status, 200);
  const late = await new CheckoutCompletion(m.ctx, store).complete(stale, signed4);
  assert.deepEqual([late.status, late.txid], ['broadcast', q4.expected_txid]);
  await assert.rejects(new CheckoutCompletion(m.ctx, store).complete(stale, editPsbt(signed4, (tx) => tx.finalizeIdx(0))), (e: any) => e.code === 'state_changed');
  assert.equal((await settlementsFor(q4.id)).length, 1);
});

void test('a listing another buyer already reserved is refused from the listing read, before any signature is verified', async () => {
  const { l, buyer, q } = await quoted('precheck-winner');
  const late = await newBuyer(m, 'p2wpkh', 'precheck-loser');
  const lateQuote = await quoteOk(m, late, { lines: [{ listing_id: l.id }] });
  assert.equal((await complete(m, buyer, q.id, signQuote(q, buyer.w))).status, 200);
  // A signature by the wrong key would be 422 signature_invalid if it were verified: the
  // reserved listing answers first, so no verification work is spent on a lost race.
  const r = await complete(m, late, lateQuote.id, wrongKeySignature(lateQuote.psbt_hex, late));
  assert.deepEqual([r.status, r.body.code, r.body.listing_id], [409, 'checkout_changed', l.id]);
  // On a listing still active the same bytes are verified and refused as such.
  const { buyer: b2, q: q2 } = await quoted('precheck-active');
  const bad = await complete(m, b2, q2.id, wrongKeySignature(q2.psbt_hex, b2));
  assert.deepEqual([bad.status, bad.body.code], [422, 'signature_invalid']);
});
