/** Attach templates (prepared units, no_funding, chaining on change) and a P2PKH source with a separate SegWit seller. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx } from '../helpers/devnet.js';
import { finalTxid, openMarket, signPsbt, type Market } from '../helpers/market.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const now = () => Math.floor(m.clock.now() / 1000);
const template = (token: string, body: Record<string, unknown>) => m.call('POST', '/v1/attach-templates', token, body);
const get = async (token: string, id: string) => (await m.call('GET', `/v1/listing-preflights/${id}`, token)).body.result;

void test('an attach template prepares a unit; chaining a second attach on the first one’s unconfirmed change', async () => {
  const w = makeWallet('p2tr', 'at-owner');
  await m.fund(w, 60_000);
  const asset = await m.issue(w, '2');
  const token = await m.signIn(w);
  const first = await template(token, { utxo_owner: w.address, asset, quantity_raw: '1' });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const d1 = first.body.result;
  assert.equal(d1.purpose, 'prepare');
  assert.equal(d1.mode, 'attach');
  assert.equal(d1.listing, undefined);
  const s1 = await m.call('POST', `/v1/listing-preflights/${d1.id}/attach`, token, { psbt_hex: signPsbt(d1.attach.psbt_hex, w, [0], SigHash.ALL) });
  assert.equal(s1.status, 200, JSON.stringify(s1.body));
  assert.equal(s1.body.result.next_action, 'wait_for_indexer');

  // The only asset-free BTC is now the first attach's change, still in the mempool.
  const again = await template(token, { utxo_owner: w.address, asset, quantity_raw: '1' });
  assert.equal(again.status, 422);
  assert.equal(again.body.code, 'insufficient_funds');
  assert.equal(again.body.reason, 'no_funding');
  assert.equal(again.body.retryable, true);

  const chained = await template(token, { utxo_owner: w.address, asset, quantity_raw: '1', funding: [{ txid: d1.expected_txid, vout: 2 }] });
  assert.equal(chained.status, 200, JSON.stringify(chained.body));
  const d2 = chained.body.result;
  const tx2 = Transaction.fromPSBT(hex.decode(d2.attach.psbt_hex), READ_TX_OPTS);
  assert.equal(hex.encode(tx2.getInput(0).txid!), d1.expected_txid);
  const s2 = await m.call('POST', `/v1/listing-preflights/${d2.id}/attach`, token, { psbt_hex: signPsbt(d2.attach.psbt_hex, w, [0], SigHash.ALL) });
  assert.equal(s2.status, 200, JSON.stringify(s2.body));

  await m.mine();
  await m.sync();
  for (const d of [d1, d2]) {
    const r = await get(token, d.id);
    assert.equal(r.status, 'prepared');
    assert.equal(r.next_action, null);
    const bal = await m.devnet.counterparty.getUtxoBalances(`${d.expected_txid}:0`);
    assert.deepEqual(bal.map((b) => [b.asset, b.quantity_raw, b.address]), [[asset, '1', w.address]]);
  }
  // A prepared unit is listed with a reuse preflight.
  const listing = await m.call('POST', '/v1/listing-preflights', token, { seller: w.address, asset, quantity_raw: '1', price_sats: 8_000, idempotency_key: 'after-prepare' });
  assert.equal(listing.body.result.mode, 'reuse');
  assert.ok([d1.expected_txid, d2.expected_txid].includes(listing.body.result.asset_utxo.txid));
});

void test("funding that names another draft's asset UTXO (unconfirmed, so Counterparty shows no balance yet) is refused", async () => {
  // Seller and source are one address, so the first attach's out 0 (the unit, listed pending)
  // pays the source too. Spent as funding it would carry the unit into the new attach's out 0
  // and leave the first listing live on a spent outpoint.
  const w = makeWallet('p2wpkh', 'at-chain-unit');
  await m.fund(w, 60_000);
  const asset = await m.issue(w, '2');
  const token = await m.signIn(w);
  const first = (await m.call('POST', '/v1/listing-preflights', token, { seller: w.address, asset, quantity_raw: '1', price_sats: 9_000, idempotency_key: 'chain-unit-1' })).body.result;
  const listed = await m.call('POST', `/v1/listing-preflights/${first.id}/attach-and-list`, token, {
    attach_psbt_hex: signPsbt(first.attach.psbt_hex, w, [0], SigHash.ALL),
    listing_psbt_hex: signPsbt(first.listing.psbt_hex, w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: now() + 3600,
  });
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  for (const [what, funding] of [
    ['the unit first', [{ txid: first.expected_txid, vout: 0 }, { txid: first.expected_txid, vout: 2 }]],
    ['the unit after the change', [{ txid: first.expected_txid, vout: 2 }, { txid: first.expected_txid, vout: 0 }, { txid: (await m.fund(w, 400)).txid, vout: 0 }]],
  ] as const) {
    const r = await m.call('POST', '/v1/listing-preflights', token, { seller: w.address, asset, quantity_raw: '1', funding, fee_rate: 50, idempotency_key: `chain-unit-${what.length}` });
    assert.equal(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, 'invalid_request');
    assert.match(r.body.field, /^body\.funding\[\d\]$/);
  }
  const change = await template(token, { utxo_owner: w.address, asset, quantity_raw: '1', funding: [{ txid: first.expected_txid, vout: 2 }] });
  assert.equal(change.status, 200, JSON.stringify(change.body));
});

void test('no_funding: BTC paid to the source but still confirming', async () => {
  const w = makeWallet('p2wpkh', 'at-unconfirmed');
  const payer = makeWallet('p2wpkh', 'at-payer');
  const coin = await m.fund(payer, 50_000);
  await m.devnet.bitcoin.broadcast(buildTx([{ wallet: payer, coin }], [{ script: w.script, amount: 49_000n }]));
  const asset = await m.issue(w, '1');
  const token = await m.signIn(w);
  const r = await template(token, { utxo_owner: w.address, asset, quantity_raw: '1' });
  assert.equal(r.status, 422);
  assert.deepEqual([r.body.code, r.body.reason, r.body.retryable, r.body.have_sats], ['insufficient_funds', 'no_funding', true, 0]);
  await m.mine();
  const ok = await template(token, { utxo_owner: w.address, asset, quantity_raw: '1' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

void test('P2PKH source and a separate SegWit seller: the txid changes at signing, the outpoint is read from the draft', async () => {
  const seller = makeWallet('p2wpkh', 'at-segwit-seller');
  const source = makeWallet('p2pkh', 'at-legacy-source');
  await m.fund(source, 80_000);
  const asset = await m.issue(source, '5');
  const token = await m.signIn(seller);
  const r = await m.call('POST', '/v1/listing-preflights', token, {
    seller: seller.address, asset_source: source.address, asset, quantity_raw: '5', price_sats: 25_000, idempotency_key: 'legacy-1',
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const d = r.body.result;
  const unsignedTxid = Transaction.fromPSBT(hex.decode(d.attach.psbt_hex), READ_TX_OPTS).id;
  const signedAttach = signPsbt(d.attach.psbt_hex, source, [0], SigHash.ALL);
  const realTxid = finalTxid(signedAttach);
  assert.notEqual(realTxid, unsignedTxid, 'a scriptSig changes the txid');

  // The seller cannot sign a listing before the attach is submitted.
  const early = await m.call('POST', `/v1/listing-preflights/${d.id}/listing`, token, { psbt_hex: signedAttach, expires_at: now() + 3600 });
  assert.equal(early.status, 409);

  const s = await m.call('POST', `/v1/listing-preflights/${d.id}/attach`, token, { psbt_hex: signedAttach });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const after = s.body.result;
  assert.equal(after.attach_txid, realTxid);
  assert.equal(after.expected_txid, realTxid);
  assert.deepEqual(after.asset_utxo, { txid: realTxid, vout: 0, utxo_value_sats: 330 });
  assert.equal(after.next_action, 'sign_listing');
  const listing = signPsbt(after.listing.psbt_hex, seller, [0], SigHash.SINGLE_ANYONECANPAY);
  const l = await m.call('POST', `/v1/listing-preflights/${d.id}/listing`, token, { psbt_hex: listing, expires_at: now() + 86400 });
  assert.equal(l.status, 200, JSON.stringify(l.body));
  assert.equal(l.body.result.utxo_txid, realTxid);
  assert.equal(l.body.result.state, 'pending');

  await m.mine();
  await m.sync();
  const done = await get(token, d.id);
  assert.equal(done.status, 'completed');
  assert.equal(done.listing_status, 'active');
  const bal = await m.devnet.counterparty.getUtxoBalances(`${realTxid}:0`);
  assert.deepEqual(bal.map((b) => [b.asset, b.quantity_raw, b.address]), [[asset, '5', seller.address]]);
  const held = (await m.devnet.counterparty.getAddressBalances(source.address)).filter((b) => b.asset === asset && b.utxo === null);
  assert.deepEqual(held, []);
});
