/** Submitting signed attaches and listings: verification, journal-then-broadcast, relay outcomes. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import { makeWallet, signInput, type TestWallet } from '../helpers/wallets.js';
import { buildTx, type Coin } from '../helpers/devnet.js';
import { editPsbt, finalTxid, openMarket, signPsbt, type Market } from '../helpers/market.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

let n = 0;
const now = () => Math.floor(m.clock.now() / 1000);
async function draftFor(price: number | undefined = 40_000) {
  const w = makeWallet('p2wpkh', `sub-seller-${++n}`);
  const coin = await m.fund(w, 100_000);
  const asset = await m.issue(w, '1');
  const token = await m.signIn(w);
  const r = await m.call('POST', '/v1/listing-preflights', token, {
    seller: w.address, asset, quantity_raw: '1', idempotency_key: `s-${n}`, ...(price ? { price_sats: price } : {}),
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { w, coin, asset, token, d: r.body.result };
}
const get = async (token: string, id: string) => (await m.call('GET', `/v1/listing-preflights/${id}`, token)).body.result;
const settlements = (ref: string) => m.ctx.store.db.selectFrom('settlements').selectAll().where('ref_id', '=', ref).execute();
const listingsOf = (seller: string) => m.ctx.store.db.selectFrom('listings').selectAll().where('seller', '=', seller).execute();

/** A signature by `thief` placed on input `idx` of a PSBT whose prevout pays someone else. */
function forgedSignature(psbtHex: string, idx: number, thief: TestWallet, sighash: number): string {
  const asThief = editPsbt(psbtHex, (tx) => {
    const w = tx.getInput(idx).witnessUtxo!;
    tx.updateInput(idx, { witnessUtxo: { script: thief.script, amount: w.amount } }, true);
    signInput(tx, idx, thief, sighash);
  });
  const partialSig = editPsbtRead(asThief, idx);
  return editPsbt(psbtHex, (tx) => tx.updateInput(idx, { partialSig, sighashType: sighash }, true));
}
function editPsbtRead(psbtHex: string, idx: number) {
  let sigs: any;
  editPsbt(psbtHex, (tx) => {
    sigs = tx.getInput(idx).partialSig;
  });
  return sigs;
}

void test('attach-and-list: verified, journaled with claims, only the attach relayed; the indexer activates the listing', async () => {
  const { w, token, d } = await draftFor(40_000);
  const attach = signPsbt(d.attach.psbt_hex, w, [0], SigHash.ALL);
  const listing = signPsbt(d.listing.psbt_hex, w, [0], SigHash.SINGLE_ANYONECANPAY);
  const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, token, { attach_psbt_hex: attach, listing_psbt_hex: listing, expires_at: now() + 7 * 86400 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const after = r.body.result;
  assert.equal(after.status, 'awaiting_indexer');
  assert.equal(after.next_action, 'wait_for_indexer');
  assert.equal(after.attach_txid, d.expected_txid);
  assert.equal(after.listing_status, 'pending');
  assert.equal(after.listed_price_sats, 40_000);
  assert.match(after.listing_id, /^lst_/);
  assert.equal(after.attach, undefined);

  const [s] = await settlements(d.id);
  assert.equal(s?.kind, 'attach');
  assert.equal(s?.state, 'relayed');
  assert.equal(s?.txid, d.expected_txid);
  const claims = await m.ctx.store.db.selectFrom('outpoint_claims').select('outpoint').where('settlement_id', '=', s!.id).execute();
  assert.deepEqual(claims.map((c) => c.outpoint), [`${hex.encode(editPsbtInput0(d.attach.psbt_hex))}:0`]);
  assert.equal((await m.devnet.bitcoin.getTransaction(d.expected_txid))?.confirmations, 0, 'the attach is in the mempool');
  const [l] = await listingsOf(w.address);
  assert.equal(l?.state, 'pending');
  assert.equal(l?.signed_psbt, listing, 'the signed half is stored as sent');

  await m.mine();
  await m.sync();
  const done = await get(token, d.id);
  assert.equal(done.status, 'completed');
  assert.equal(done.listing_status, 'active');
  assert.equal(done.fees.protocol.variable_until_confirmed, false);
  assert.equal(done.fees.protocol.actual_amount_raw, '0');
  assert.equal(typeof done.fees.protocol.observed_block, 'number');
  assert.equal(done.bitcoin_confirmed_at, now());
  assert.equal(done.next_action, null);
  const bal = await m.devnet.counterparty.getUtxoBalances(`${d.expected_txid}:0`);
  assert.deepEqual(bal.map((b) => [b.asset, b.quantity_raw]), [[d.asset, '1']]);

  // The same signed attach again is safe; a new one is refused.
  const again = await m.call('POST', `/v1/listing-preflights/${d.id}/attach`, token, { psbt_hex: attach });
  assert.equal(again.status, 200, JSON.stringify(again.body));
});

function editPsbtInput0(psbtHex: string): Uint8Array {
  let txid: Uint8Array = new Uint8Array();
  editPsbt(psbtHex, (tx) => {
    txid = tx.getInput(0).txid!;
  });
  return txid;
}

void test('bad signatures and changed templates are refused and change nothing', async () => {
  const { w, coin, token, d } = await draftFor(40_000);
  const thief = makeWallet('p2wpkh', 'sub-thief');
  const goodAttach = signPsbt(d.attach.psbt_hex, w, [0], SigHash.ALL);
  const goodListing = signPsbt(d.listing.psbt_hex, w, [0], SigHash.SINGLE_ANYONECANPAY);
  const other = await draftFor(40_000);
  const otherListing = signPsbt(other.d.listing.psbt_hex, other.w, [0], SigHash.SINGLE_ANYONECANPAY);
  const expiry = now() + 86400;
  const attachCases: Array<[string, string, number, string]> = [
    ['attach signed ALL|ANYONECANPAY', signPsbt(d.attach.psbt_hex, w, [0], SigHash.ALL_ANYONECANPAY), 422, 'signature_invalid'],
    ['attach signed SINGLE', signPsbt(d.attach.psbt_hex, w, [0], SigHash.SINGLE), 422, 'signature_invalid'],
    ['attach unsigned', d.attach.psbt_hex, 422, 'signature_invalid'],
    ['attach signed by another key', forgedSignature(d.attach.psbt_hex, 0, thief, SigHash.ALL), 422, 'signature_invalid'],
    ['attach with an extra output', signPsbt(editPsbt(d.attach.psbt_hex, (tx) => tx.addOutput({ script: thief.script, amount: 1_000n })), w, [0], SigHash.ALL), 422, 'template_mismatch'],
    ['attach with a changed change output', signPsbt(editPsbt(d.attach.psbt_hex, (tx) => tx.updateOutput(2, { amount: tx.getOutput(2).amount! - 500n })), w, [0], SigHash.ALL), 422, 'template_mismatch'],
    ['attach paying the unit elsewhere', signPsbt(editPsbt(d.attach.psbt_hex, (tx) => tx.updateOutput(0, { script: thief.script })), w, [0], SigHash.ALL), 422, 'template_mismatch'],
  ];
  for (const [what, psbt, status, code] of attachCases) {
    const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, token, { attach_psbt_hex: psbt, listing_psbt_hex: goodListing, expires_at: expiry });
    assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, code, what);
    assert.equal(r.body.field, 'body.attach_psbt_hex', what);
  }
  const listingCases: Array<[string, string, string]> = [
    ['listing signed ALL', signPsbt(d.listing.psbt_hex, w, [0], SigHash.ALL), 'signature_invalid'],
    ['listing signed by another key', forgedSignature(d.listing.psbt_hex, 0, thief, SigHash.SINGLE_ANYONECANPAY), 'signature_invalid'],
    ['listing for another outpoint', otherListing, 'template_mismatch'],
    ['listing at another price', signPsbt(editPsbt(d.listing.psbt_hex, (tx) => tx.updateOutput(0, { amount: 39_000n })), w, [0], SigHash.SINGLE_ANYONECANPAY), 'template_mismatch'],
  ];
  for (const [what, psbt, code] of listingCases) {
    const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, token, { attach_psbt_hex: goodAttach, listing_psbt_hex: psbt, expires_at: expiry });
    assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, code, what);
    assert.equal(r.body.field, 'body.listing_psbt_hex', what);
  }
  const past = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, token, { attach_psbt_hex: goodAttach, listing_psbt_hex: goodListing, expires_at: now() });
  assert.equal(past.status, 400);
  const garbage = await m.call('POST', `/v1/listing-preflights/${d.id}/attach`, token, { psbt_hex: '70736274ff00' });
  assert.equal(garbage.body.code, 'invalid_transaction');
  const foreign = await m.call('POST', `/v1/listing-preflights/${d.id}/attach`, other.token, { psbt_hex: goodAttach });
  assert.equal(foreign.status, 404);

  assert.equal((await get(token, d.id)).status, 'awaiting_attach_signature');
  assert.deepEqual(await settlements(d.id), []);
  assert.deepEqual(await listingsOf(w.address), []);
  assert.equal(await m.devnet.bitcoin.getTransaction(d.expected_txid), null);
  assert.ok(await m.devnet.bitcoin.getTxOut(coin.txid, coin.vout), 'the funding coin is untouched');
});

void test('an input spent elsewhere (in the mempool): the attach lost to a conflicting spend, 409 state_changed with mempool_reason, claims released, draft failed', async () => {
  const { w, coin, token, d } = await draftFor(undefined);
  const sink = makeWallet('p2wpkh', 'sub-sink');
  await m.devnet.bitcoin.broadcast(buildTx([{ wallet: w, coin: coin as Coin }], [{ script: sink.script, amount: coin.amount - 1_000n }]));
  const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach`, token, { psbt_hex: signPsbt(d.attach.psbt_hex, w, [0], SigHash.ALL) });
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.equal(r.body.code, 'state_changed');
  assert.equal(typeof r.body.mempool_reason, 'string');
  assert.equal(r.body.claims_released, true);
  const after = await get(token, d.id);
  assert.equal(after.status, 'failed');
  assert.match(after.last_error, /conflicted/);
  const [s] = await settlements(d.id);
  assert.equal(s?.state, 'conflicted');
  assert.equal((await m.ctx.store.db.selectFrom('outpoint_claims').selectAll().where('settlement_id', '=', s!.id).execute()).length, 0);
});

void test('an expired template is 410; the attach alone then a listing signed before confirmation stays pending', async () => {
  const a = await draftFor(30_000);
  m.clock.advance(15 * 60_000);
  const late = await m.call('POST', `/v1/listing-preflights/${a.d.id}/attach`, a.token, { psbt_hex: signPsbt(a.d.attach.psbt_hex, a.w, [0], SigHash.ALL) });
  assert.equal(late.status, 410);
  assert.equal(late.body.code, 'expired');

  const b = await draftFor(30_000);
  const attach = signPsbt(b.d.attach.psbt_hex, b.w, [0], SigHash.ALL);
  const r = await m.call('POST', `/v1/listing-preflights/${b.d.id}/attach`, b.token, { psbt_hex: attach });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(finalTxid(attach), r.body.result.attach_txid);
  assert.equal(r.body.result.next_action, 'sign_listing');
  const listing = signPsbt(r.body.result.listing.psbt_hex, b.w, [0], SigHash.SINGLE_ANYONECANPAY);
  const l = await m.call('POST', `/v1/listing-preflights/${b.d.id}/listing`, b.token, { psbt_hex: listing, expires_at: now() + 3600 });
  assert.equal(l.status, 200, JSON.stringify(l.body));
  assert.deepEqual(Object.keys(l.body.result).sort(), ['asset', 'expires_at', 'id', 'preflight_id', 'price_sats', 'protocol_subtype', 'seller', 'state', 'utxo_txid', 'utxo_vout', 'version']);
  assert.equal(l.body.result.state, 'pending');
  assert.equal(l.body.result.utxo_txid, r.body.result.attach_txid);
  const twice = await m.call('POST', `/v1/listing-preflights/${b.d.id}/listing`, b.token, { psbt_hex: listing, expires_at: now() + 3600 });
  assert.equal(twice.status, 409);
  assert.equal((await get(b.token, b.d.id)).status, 'awaiting_indexer', 'keeps its status with a listing row');
  await m.mine();
  await m.sync();
  const done = await get(b.token, b.d.id);
  assert.equal(done.status, 'completed');
  assert.equal(done.listing_status, 'active');
});

void test('two drafts over the same funding coin: the second submission of the same attach is 409 conflict_spend, not a 500', async () => {
  const w = makeWallet('p2wpkh', `sub-twin-${++n}`);
  const coin = await m.fund(w, 100_000);
  const asset = await m.issue(w, '2');
  const token = await m.signIn(w);
  const body = (key: string) => ({ seller: w.address, asset, quantity_raw: '1', funding: [{ txid: coin.txid, vout: coin.vout }], fee_rate: 2, idempotency_key: key });
  const a = (await m.call('POST', '/v1/listing-preflights', token, body('twin-a'))).body.result;
  const b = (await m.call('POST', '/v1/listing-preflights', token, body('twin-b'))).body.result;
  assert.notEqual(a.id, b.id);
  assert.equal(a.expected_txid, b.expected_txid, 'the same coin, asset, quantity and fee rate: the same transaction');
  const signed = signPsbt(a.attach.psbt_hex, w, [0], SigHash.ALL);
  const first = await m.call('POST', `/v1/listing-preflights/${a.id}/attach`, token, { psbt_hex: signed });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const second = await m.call('POST', `/v1/listing-preflights/${b.id}/attach`, token, { psbt_hex: signed });
  assert.equal(second.status, 409, JSON.stringify(second.body));
  assert.equal(second.body.code, 'conflict_spend');
  assert.equal((await get(token, b.id)).status, 'awaiting_attach_signature');
  assert.deepEqual(await settlements(b.id), []);
});
