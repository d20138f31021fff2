/**
 * Why exposure is a state, proved on the devnet with real keys and full-RBF (Core 28):
 *
 * 1. Sniping: a plain listing's SINGLE|ANYONECANPAY pair is public once its checkout is relayed.
 *    An attacker lifts the pair into a higher-fee transaction of its own that delivers the unit
 *    to itself; the devnet accepts it and evicts the checkout; after mining the attacker holds
 *    the unit. The market finds its checkout conflicted, drops the fill and marks the listing
 *    exposed (then ended by the attacker's spend).
 * 2. Eviction: the buyer double-spends its funding with a higher fee, the checkout is evicted
 *    without the unit moving; the listing is exposed (off the book and the counts, the seller's
 *    reads and feed say why), is not relisted at that price, and the seller rotates the unit.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { editPsbt, openMarket, signPsbt, type Market } from '../helpers/market.js';
import { coinOf, buildTx } from '../helpers/devnet.js';
import { makeWallet, signInput, walletInput } from '../helpers/wallets.js';
import { listUnit, newSeller, type Seller } from '../helpers/listing.js';
import { complete, fillsOf, heldOn, listingRow, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { assertLogReplaysFeeds } from '../helpers/event-log.js';
import { eventId } from '../../src/trade/event-rows.js';

let m: Market;
let alice: Seller;
let bob: Seller;
const SLUG = 'exposure';

before(async () => {
  m = await openMarket();
  alice = await newSeller(m, 'p2wpkh', 'exposure-alice');
  bob = await newSeller(m, 'p2tr', 'exposure-bob');
  await importCatalog(m.ctx.store.db, {
    collections: [{ slug: SLUG, name: 'Exposure' }],
    artists: [],
    assets: [alice.asset, bob.asset].map((asset) => ({ asset, collection: SLUG, max_supply_units: 1, issued_year: 2024, media_kind: 'image' as const })),
  });
});
after(async () => m.close());

const get = async (url: string, token: string | null = null) => {
  const r = await m.call('GET', url, token);
  assert.equal(r.status, 200, `${url}: ${JSON.stringify(r.body)}`);
  return r.body;
};
const askIds = async () => ((await get(`/v1/collections/${SLUG}/book`)).result.asks as Array<{ listings: Array<{ id: string }> }>).flatMap((a) => a.listings.map((l) => l.id));
const listedCount = async () => ((await get('/v1/collections')).result as Array<{ slug: string; listed: number }>).find((c) => c.slug === SLUG)?.listed;
const inMempool = async (txid: string) => (await m.ctx.chain.bitcoin.getMempoolEntry(txid)) !== null;
/** The listing's public `delisted` (newest-first feed, fresh), as [reason, at], or null. */
async function publicDelisted(id: string) {
  await m.ctx.cache.clear();
  const ev = ((await get('/v1/events?kind=listings&limit=100')).result as Array<Record<string, any>>).find((e) => e.event_id === eventId('delisted', id));
  return ev ? [ev.reason, ev.at] : null;
}
const rawTx = (txid: string) => Transaction.fromRaw(hex.decode(m.devnet.rpc.getrawtransaction(txid, false) as string), READ_TX_OPTS);

/** A relayed checkout of `listingId` by a fresh buyer; its txid and fee. */
async function relayedCheckout(label: string, listingId: string) {
  const buyer = await newBuyer(m, 'p2wpkh', label);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: listingId }], delivery_mode: 'attached' });
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(await inMempool(q.expected_txid));
  const fee = BigInt((await m.ctx.chain.bitcoin.getMempoolEntry(q.expected_txid))!.fee_sats);
  return { buyer, q, txid: q.expected_txid as string, fee };
}

void test('sniping: a relayed plain checkout\'s pair is lifted into a higher-fee replacement that takes the unit; the market records the conflict', async () => {
  const l = await listUnit(m, alice, 30_000);
  await m.sync();
  const { txid: checkoutTxid, fee } = await relayedCheckout('exposure-snipe-buyer', l.id);

  // The attacker reads the pair off the public checkout: the seller's input k and output k.
  const checkout = rawTx(checkoutTxid);
  const k = Array.from({ length: checkout.inputsLength }, (_, i) => checkout.getInput(i)).findIndex((i) => hex.encode(i.txid!) === l.utxo_txid && i.index === l.utxo_vout);
  assert.equal(k, 1, 'a one-listing checkout: the buyer\'s input 0, then the pair');
  const pairIn = checkout.getInput(k);
  const pairOut = checkout.getOutput(k);
  const sniper = makeWallet('p2wpkh', 'exposure-sniper');
  const coin = await m.fund(sniper, 200_000);
  const row = await listingRow(m, l.id);
  const pairScript = hex.decode((m.devnet.rpc.getrawtransaction(l.utxo_txid, true) as { vout: Array<{ scriptPubKey: { hex: string } }> }).vout[l.utxo_vout]!.scriptPubKey.hex);
  const snipe = new Transaction({ allowUnknownOutputs: true, version: checkout.version, lockTime: checkout.lockTime });
  snipe.addInput(walletInput(sniper, { txid: coin.txid, index: coin.vout, amount: coin.amount }));
  // Output 0 (first non-OP_RETURN) receives the attached unit; output 1 pays the seller as signed.
  const snipeFee = fee * 3n + 2_000n;
  snipe.addOutput({ script: sniper.script, amount: 330n });
  snipe.addOutput({ script: pairOut.script!, amount: pairOut.amount! });
  snipe.addOutput({ script: sniper.script, amount: coin.amount + BigInt(row.utxo_value_sats) - 330n - pairOut.amount! - snipeFee });
  snipe.addInput({
    txid: pairIn.txid!, index: pairIn.index!, sequence: pairIn.sequence!, finalScriptWitness: pairIn.finalScriptWitness!,
    witnessUtxo: { script: pairScript, amount: BigInt(row.utxo_value_sats) },
  });
  signInput(snipe, 0, sniper, SigHash.ALL);
  snipe.finalizeIdx(0);
  const snipeTxid = await m.devnet.bitcoin.broadcast(snipe.hex);
  assert.equal(await inMempool(checkoutTxid), false, 'full-RBF evicted the buyer\'s checkout');

  // Recovery finds the relayed checkout gone and its inputs taken: conflicted, released, exposed.
  await m.sync();
  const s = await m.ctx.store.db.selectFrom('settlements').selectAll().where('txid', '=', checkoutTxid).executeTakeFirstOrThrow();
  assert.equal(s.state, 'conflicted');
  assert.match(s.mempool_reason!, /^insufficient fee/);
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['dropped']);
  const exposed = await listingRow(m, l.id);
  assert.deepEqual([exposed.state, exposed.exposure_reason, exposed.signed_psbt], ['exposed', 'checkout_replaced', null]);
  assert.deepEqual(await askIds(), []);
  // Delisting forgets the listing but cannot void the public half: the answer says so.
  const delisted = await m.call('POST', `/v1/listings/${l.id}/delist`, alice.token);
  assert.equal(delisted.status, 200, JSON.stringify(delisted.body));
  assert.equal(delisted.body.result.state, 'ended');
  assert.match(delisted.body.result.exposure_warning, /only moving the unit|Only moving the unit/);

  await m.mine();
  await m.sync();
  assert.equal(await heldOn(m, `${snipeTxid}:0`, alice.asset), 1n, 'the sniper holds the unit');
  assert.equal((await m.ctx.chain.bitcoin.getTxOut(snipeTxid, 0))?.address, sniper.address);
  assert.deepEqual([(await listingRow(m, l.id)).state, (await listingRow(m, l.id)).end_reason], ['ended', 'owner']);
  const feed = (await get(`/v1/address/${alice.w.address}/events`, alice.token)).result as Array<Record<string, any>>;
  const ev = feed.find((e) => e.kind === 'listing_exposed' && e.listing_id === l.id);
  assert.ok(ev, JSON.stringify(feed));
  assert.equal(ev.txid, checkoutTxid);
});

void test('eviction: the buyer double-spends its funding; the listing is exposed, off the book and counts, not relisted, and a delist warns', async () => {
  const l = await listUnit(m, bob, 25_000);
  await m.sync();
  assert.deepEqual(await askIds(), [l.id]);
  assert.equal(await listedCount(), 1);
  const { buyer, txid: checkoutTxid, fee } = await relayedCheckout('exposure-evict-buyer', l.id);

  // The buyer spends its own funding input again, paying more: the checkout is evicted.
  const input0 = rawTx(checkoutTxid).getInput(0);
  const funding = coinOf(m.devnet, hex.encode(input0.txid!), input0.index!);
  await m.devnet.bitcoin.broadcast(buildTx([{ wallet: buyer.w, coin: funding }], [{ script: buyer.w.script, amount: funding.amount - fee * 2n - 1_000n }]));
  assert.equal(await inMempool(checkoutTxid), false);

  await m.sync();
  const row = await listingRow(m, l.id);
  assert.deepEqual([row.state, row.exposure_reason], ['exposed', 'checkout_replaced']);
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['dropped']);
  assert.deepEqual(await askIds(), []);
  assert.equal(await listedCount(), 0);
  // The public feeds say it left the book, at its exposure.
  assert.deepEqual(await publicDelisted(l.id), ['invalid', row.exposed_at]);

  // The seller's reads say so and why.
  const draft = (await get(`/v1/listing-preflights/${row.draft_id}`, bob.token)).result;
  assert.equal(draft.listing_status, 'exposed');
  assert.deepEqual(draft.listing_exposure, { reason: 'checkout_replaced', at: row.exposed_at });
  const feed = (await get(`/v1/address/${bob.w.address}/events`, bob.token)).result as Array<Record<string, any>>;
  const ev = feed.find((e) => e.kind === 'listing_exposed');
  assert.ok(ev, JSON.stringify(feed));
  assert.deepEqual([ev.listing_id, ev.txid, ev.status, ev.exposure_reason], [l.id, checkoutTxid, 'exposed', 'checkout_replaced']);

  const inventory = (await get('/v1/inventory/prepared', bob.token)).result as Array<Record<string, any>>;
  assert.deepEqual(inventory.filter((u) => u.listing_id === l.id).map((u) => u.listing_status), ['exposed']);
  // Not relisted at that price: the unit's outpoint stays held until it moves.
  const again = await m.call('POST', '/v1/listing-preflights', bob.token, {
    seller: bob.w.address, asset: bob.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout }, price_sats: 25_000, idempotency_key: 'exposure-relist',
  });
  assert.equal(again.status, 409, JSON.stringify(again.body));
  // A buyer cannot quote it either.
  const late = await m.call('POST', '/v1/checkout/quotes', buyer.token, { lines: [{ listing_id: l.id }] });
  assert.equal(late.status, 409, JSON.stringify(late.body));

  // The seller rotates: the unit moves to a fresh 330-sat output of its own, funded by its BTC.
  const foreign = await m.call('POST', `/v1/listings/${l.id}/rotation`, buyer.token, {});
  assert.equal(foreign.status, 404);
  const t = await m.call('POST', `/v1/listings/${l.id}/rotation`, bob.token, { fee_rate: 3 });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  const tpl = t.body.result;
  assert.deepEqual(tpl.new_asset_utxo, { txid: tpl.expected_txid, vout: 0, utxo_value_sats: 330 });
  const unsigned = Transaction.fromPSBT(hex.decode(tpl.psbt_hex), READ_TX_OPTS);
  assert.equal(`${hex.encode(unsigned.getInput(0).txid!)}:${unsigned.getInput(0).index}`, `${l.utxo_txid}:${l.utxo_vout}`);
  // Signed SINGLE|ANYONECANPAY, a rotation could be lifted like the listing was: refused.
  const lifted = await m.call('POST', `/v1/listings/${l.id}/rotation/signed`, bob.token, { psbt_hex: signPsbt(tpl.psbt_hex, bob.w, tpl.inputs_to_sign, SigHash.SINGLE_ANYONECANPAY) });
  assert.deepEqual([lifted.status, lifted.body.code], [422, 'signature_invalid'], JSON.stringify(lifted.body));
  // The unit must land on the seller's own output 0.
  const redirected = editPsbt(tpl.psbt_hex, (tx) => tx.updateOutput(0, { script: buyer.w.script }));
  const stolen = await m.call('POST', `/v1/listings/${l.id}/rotation/signed`, bob.token, { psbt_hex: signPsbt(redirected, bob.w, tpl.inputs_to_sign, SigHash.DEFAULT) });
  assert.deepEqual([stolen.status, stolen.body.code], [422, 'template_mismatch'], JSON.stringify(stolen.body));
  const other = (await m.call('POST', `/v1/listings/${l.id}/rotation`, bob.token, { fee_rate: 5 })).body.result;
  assert.notEqual(other.expected_txid, tpl.expected_txid);
  const signed = signPsbt(tpl.psbt_hex, bob.w, tpl.inputs_to_sign, SigHash.DEFAULT);
  const sent = await m.call('POST', `/v1/listings/${l.id}/rotation/signed`, bob.token, { psbt_hex: signed });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.deepEqual(sent.body.result, { listing_id: l.id, txid: tpl.expected_txid, status: 'broadcast', new_asset_utxo: { txid: tpl.expected_txid, vout: 0 } });
  assert.ok(await inMempool(tpl.expected_txid));
  assert.equal((await m.call('POST', `/v1/listings/${l.id}/rotation/signed`, bob.token, { psbt_hex: signed })).status, 200, 'the same bytes again are safe');
  // A second, different rotation loses to the first one's claims.
  const second = await m.call('POST', `/v1/listings/${l.id}/rotation/signed`, bob.token, { psbt_hex: signPsbt(other.psbt_hex, bob.w, other.inputs_to_sign, SigHash.DEFAULT) });
  assert.deepEqual([second.status, second.body.code], [409, 'conflict_spend'], JSON.stringify(second.body));

  await m.mine();
  await m.sync();
  assert.equal(await heldOn(m, `${tpl.expected_txid}:0`, bob.asset), 1n, 'the unit sits on the seller\'s fresh output');
  const rotated = await listingRow(m, l.id);
  assert.deepEqual([rotated.state, rotated.end_reason], ['ended', 'rotated']);
  assert.deepEqual(await publicDelisted(l.id), ['owner', row.exposed_at], 'a rotation is the seller\'s own move');
  const kinds = async () => ((await get(`/v1/address/${bob.w.address}/events`, bob.token)).result as Array<Record<string, any>>).filter((e) => e.listing_id === l.id).map((e) => e.kind);
  assert.ok((await kinds()).includes('listing_rotated'));
  // A reorg of the rotation's block makes the old half live again: exposed until it confirms anew.
  await m.devnet.reorg(1);
  await m.sync();
  assert.equal((await listingRow(m, l.id)).state, 'exposed');
  assert.equal((await kinds()).includes('listing_rotated'), false);
  assert.deepEqual(await publicDelisted(l.id), ['invalid', row.exposed_at], 'unrotated: the exposure\'s delisted again');
  await assertLogReplaysFeeds(m);
  await m.mine();
  await m.sync();
  assert.deepEqual([(await listingRow(m, l.id)).state, (await listingRow(m, l.id)).end_reason], ['ended', 'rotated']);

  // Listable again from its new outpoint.
  const pf = await m.call('POST', '/v1/listing-preflights', bob.token, {
    seller: bob.w.address, asset: bob.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: { txid: tpl.expected_txid, vout: 0 }, price_sats: 27_000, idempotency_key: 'exposure-relist-rotated',
  });
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  const relisted = await m.call('POST', `/v1/listing-preflights/${pf.body.result.id}/listing`, bob.token, {
    psbt_hex: signPsbt(pf.body.result.listing.psbt_hex, bob.w, [0], SigHash.SINGLE_ANYONECANPAY), expires_at: Math.floor(m.clock.now() / 1000) + 86_400,
  });
  assert.equal(relisted.status, 200, JSON.stringify(relisted.body));
  assert.equal(relisted.body.result.state, 'active');
  await m.sync();
  assert.deepEqual(await askIds(), [relisted.body.result.id]);
  const notExposed = await m.call('POST', `/v1/listings/${relisted.body.result.id}/rotation`, bob.token, {});
  assert.deepEqual([notExposed.status, notExposed.body.code], [409, 'state_changed'], JSON.stringify(notExposed.body));
});

void test('a reorg that disconnects the spend which ended an exposed listing restores it to exposed, never to the book', async () => {
  const carol = await newSeller(m, 'p2wpkh', 'exposure-carol');
  const l = await listingRow(m, (await listUnit(m, carol, 27_000)).id);
  await m.sync();
  const { txid: checkoutTxid, fee } = await relayedCheckout('exposure-reorg-buyer', l.id);
  // The sniper lifts the pair (input/output 1 of the relayed checkout) into its own replacement.
  const checkout = rawTx(checkoutTxid);
  const sniper = makeWallet('p2wpkh', 'exposure-reorg-sniper');
  const coin = await m.fund(sniper, 200_000);
  const snipe = new Transaction({ allowUnknownOutputs: true, version: checkout.version, lockTime: checkout.lockTime });
  snipe.addInput(walletInput(sniper, { txid: coin.txid, index: coin.vout, amount: coin.amount }));
  snipe.addOutput({ script: sniper.script, amount: 330n });
  snipe.addOutput({ script: checkout.getOutput(1).script!, amount: checkout.getOutput(1).amount! });
  snipe.addOutput({ script: sniper.script, amount: coin.amount + BigInt(l.utxo_value_sats) - 330n - checkout.getOutput(1).amount! - (fee * 3n + 2_000n) });
  snipe.addInput({ txid: checkout.getInput(1).txid!, index: checkout.getInput(1).index!, sequence: checkout.getInput(1).sequence!, finalScriptWitness: checkout.getInput(1).finalScriptWitness!, witnessUtxo: { script: carol.w.script, amount: BigInt(l.utxo_value_sats) } });
  signInput(snipe, 0, sniper, SigHash.ALL);
  snipe.finalizeIdx(0);
  const snipeTxid = await m.devnet.bitcoin.broadcast(snipe.hex);
  await m.sync();
  assert.equal((await listingRow(m, l.id)).state, 'exposed');

  // Mined: the sniper's spend ends the exposed listing.
  await m.mine();
  await m.sync();
  const ended = await listingRow(m, l.id);
  assert.deepEqual([ended.state, ended.end_reason], ['ended', 'invalid']);

  // The block is disconnected and the node forgets the spend: the unit is back on the listed
  // output, the seller's half is still public, so the listing is exposed again (not active).
  await m.devnet.reorg(1);
  await m.devnet.dropMempool();
  await m.ctx.indexer.run();
  assert.ok(await m.ctx.chain.bitcoin.getTxOut(l.utxo_txid, l.utxo_vout, true), 'the unit is unspent again');
  assert.equal(await inMempool(snipeTxid), false);
  const back = await listingRow(m, l.id);
  assert.deepEqual([back.state, back.end_reason, back.exposure_reason, back.signed_psbt], ['exposed', null, 'checkout_replaced', null]);
  const feed = (await get(`/v1/address/${carol.w.address}/events`, carol.token)).result as Array<Record<string, any>>;
  assert.ok(!feed.some((e) => e.kind === 'listing_invalidated' && e.listing_id === l.id), 'the invalidation was retracted');
  // Only moving the unit voids the half: the rotation is offered again.
  const rot = await m.call('POST', `/v1/listings/${l.id}/rotation`, carol.token, { fee_rate: 2 });
  assert.equal(rot.status, 200, JSON.stringify(rot.body));
});
