/**
 * Listings and reorgs of their asset UTXO, with real keys on the devnet:
 * - a reused unit whose asset UTXO a reorg unconfirms leaves the public book (`pending`) and
 *   comes back when it confirms again; it ends `invalid` if the UTXO vanished or holds
 *   something else;
 * - an `invalid` ending caused by a spend is undone when the spending block is reorged out
 *   (and its owner event removed), until the spend is final (3 confirmations).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';
import { buildTx, coinOf, type Coin } from '../helpers/devnet.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { listingsWatcher } from '../../src/modules/listings/watcher.js';
import { complete, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

let n = 0;
const catalogued: string[] = [];
const now = () => Math.floor(m.clock.now() / 1000);
const draftOf = async (token: string, id: string) => (await m.call('GET', `/v1/listing-preflights/${id}`, token)).body.result;
const listingRow = (id: string) => m.ctx.store.db.selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const eventsOf = async (address: string) =>
  (await m.ctx.store.db.selectFrom('owner_events').selectAll().where('address', '=', address).orderBy('at').execute()).map((e) => e.kind);
const tipHeight = async () => (await m.devnet.bitcoin.getTip()).height;
/** The public feed's listing events for `asset`: [kind, reason]. */
async function publicFeed(asset: string): Promise<Array<[string, string | null]>> {
  const r = await m.call('GET', '/v1/events?kind=listings&limit=100', null);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result.filter((e: any) => e.asset === asset).map((e: any) => [e.kind, e.reason]);
}
/** The owner feed through the front door: [kind, listing_id] of the seller's events. */
async function ownerFeed(s: { w: TestWallet; token: string }): Promise<Array<[string, string]>> {
  const r = await m.call('GET', `/v1/address/${s.w.address}/events`, s.token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result.map((e: any) => [e.kind, e.listing_id]);
}

/** What the public catalogue reads say about `asset`: [listed, floor_sats] (a sync flushes the cache). */
async function book(asset: string): Promise<[number, number | null]> {
  const r = await m.call('GET', '/v1/artists/reorg-tester/assets', null);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const row = r.body.result.find((a: any) => a.asset === asset);
  assert.ok(row, `${asset} is catalogued`);
  return [row.listed, row.floor_sats];
}

async function seller(family: 'p2wpkh' | 'p2tr') {
  const w = makeWallet(family, `rg-seller-${++n}`);
  const asset = await m.issue(w, '1');
  catalogued.push(asset);
  await importCatalog(m.ctx.store.db, {
    collections: [{ slug: 'reorgs', name: 'Reorgs' }],
    artists: [{ name: 'Reorg Tester' }],
    assets: catalogued.map((a) => ({ asset: a, collection: 'reorgs', artist: 'Reorg Tester' })),
  });
  return { w, asset, token: await m.signIn(w) };
}
type Seller = Awaited<ReturnType<typeof seller>>;

/** A plain signed attach of the unit from `coin` (outside the market), broadcast and mined. */
async function attachFrom(w: TestWallet, coin: Coin, asset: string) {
  const hexTx = buildTx([{ wallet: w, coin }], (input0) => [
    { script: w.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: input0, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
    { script: w.script, amount: coin.amount - 330n - 2_000n },
  ]);
  const txid = await m.devnet.bitcoin.broadcast(hexTx);
  await m.mine();
  return { txid, vout: 0 };
}

/** Lists the unit at `utxo` with mode=reuse through the front door; the listing is active at once. */
async function listReused(s: Seller, utxo: { txid: string; vout: number }, price: number, ttl = 86400) {
  const r = await m.call('POST', '/v1/listing-preflights', s.token, {
    seller: s.w.address, asset: s.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: utxo, price_sats: price, idempotency_key: `rg-${++n}`,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const d = r.body.result;
  assert.deepEqual([d.mode, d.status], ['reuse', 'ready']);
  const signed = signPsbt(d.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY);
  const l = await m.call('POST', `/v1/listing-preflights/${d.id}/listing`, s.token, { psbt_hex: signed, expires_at: now() + ttl });
  assert.equal(l.status, 200, JSON.stringify(l.body));
  assert.equal(l.body.result.state, 'active');
  return { draftId: d.id as string, listingId: l.body.result.id as string, signed };
}

/** Lists a fresh unit with attach-and-list and confirms it. */
async function listAttached(s: Seller, price: number, ttl = 86400) {
  await m.fund(s.w, 100_000);
  const d = (await m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', price_sats: price, idempotency_key: `rg-${++n}` })).body.result;
  const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, s.token, {
    attach_psbt_hex: signPsbt(d.attach.psbt_hex, s.w, [0], SigHash.ALL),
    listing_psbt_hex: signPsbt(d.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: now() + ttl,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await m.mine();
  await m.sync();
  const done = await draftOf(s.token, d.id);
  assert.equal(done.listing_status, 'active');
  return { draftId: d.id as string, listingId: done.listing_id as string, utxo: { txid: d.expected_txid as string, vout: 0 } };
}

/** Broadcasts a spend of the asset UTXO to another address (not mined). */
async function spendElsewhere(w: TestWallet, utxo: { txid: string; vout: number }) {
  const unit = coinOf(m.devnet, utxo.txid, utxo.vout);
  const fee = await m.fund(w, 10_000);
  const away = makeWallet('p2wpkh', `rg-away-${++n}`);
  return m.devnet.bitcoin.broadcast(buildTx([{ wallet: w, coin: unit }, { wallet: w, coin: fee }], [{ script: away.script, amount: 330n }, { script: w.script, amount: 8_000n }]));
}

void test('reuse: a reorg that unconfirms the asset UTXO takes the listing off the book until it confirms again', async () => {
  const s = await seller('p2tr');
  const utxo = await m.attachDirect(s.w, s.asset);
  await m.sync();
  const { draftId, listingId, signed } = await listReused(s, utxo, 25_000);
  await m.sync();
  assert.deepEqual(await book(s.asset), [1, 25_000]);
  assert.equal((await listingRow(listingId)).utxo_height, await tipHeight());

  // The attach's block is disconnected and nothing replaces it yet (Core's invalidateblock): only
  // the rollback can tell.
  const attachHeight = await tipHeight();
  await m.devnet.invalidateBlock((await m.devnet.bitcoin.getBlockHash(attachHeight))!);
  await m.sync();
  assert.equal((await listingRow(listingId)).state, 'pending');
  assert.deepEqual(await book(s.asset), [0, null]);
  await m.mine(); // mined again at the same height
  await m.sync();
  assert.deepEqual([(await listingRow(listingId)).state, (await listingRow(listingId)).utxo_height], ['active', attachHeight]);
  assert.deepEqual(await book(s.asset), [1, 25_000]);

  await m.devnet.reorg(1); // the attach goes back to the mempool; an empty block takes its height
  await m.sync();
  const l = await listingRow(listingId);
  assert.deepEqual([l.state, l.end_reason, l.utxo_height], ['pending', null, null]);
  assert.equal(l.signed_psbt, signed, 'the unit has not moved: the signed half is kept');
  assert.deepEqual(await book(s.asset), [0, null]);
  const d = await draftOf(s.token, draftId);
  assert.deepEqual([d.status, d.listing_status], ['completed', 'pending']);
  assert.deepEqual(await eventsOf(s.w.address), [], 'nothing ended');

  await m.mine(); // the attach confirms again
  await m.sync();
  const back = await listingRow(listingId);
  assert.deepEqual([back.state, back.utxo_height], ['active', await tipHeight()]);
  assert.deepEqual(await book(s.asset), [1, 25_000]);
  assert.equal((await draftOf(s.token, draftId)).listing_status, 'active');
});

void test('reuse: a listing made while the indexer lagged follows a reorg the indexer never saw', async () => {
  const s = await seller('p2wpkh');
  const utxo = await m.attachDirect(s.w, s.asset); // not synced: the indexer has not read this block
  const { listingId } = await listReused(s, utxo, 30_000);
  const recorded = await tipHeight();
  assert.equal((await listingRow(listingId)).utxo_height, recorded);

  await m.devnet.reorg(1);
  await m.sync();
  assert.deepEqual(await book(s.asset), [0, null]);
  assert.equal((await listingRow(listingId)).state, 'pending');
  await m.mine();
  await m.sync();
  assert.deepEqual(await book(s.asset), [1, 30_000]);
  assert.equal((await listingRow(listingId)).utxo_height, await tipHeight());
});

void test('reuse: a UTXO mined again lower than the height recorded is found and confirmed at its new height', async () => {
  const s = await seller('p2wpkh');
  const utxo = await m.attachDirect(s.w, s.asset); // a faucet block, then the attach block; not synced
  const { listingId } = await listReused(s, utxo, 32_000);
  const recorded = await tipHeight();
  assert.equal((await listingRow(listingId)).utxo_height, recorded);

  // Both blocks go; one block takes the faucet payment and the attach, one height lower.
  await m.devnet.invalidateBlock((await m.devnet.bitcoin.getBlockHash(recorded - 1))!);
  await m.mine();
  assert.equal((await m.devnet.bitcoin.getTransaction(utxo.txid))?.block_height, recorded - 1);
  await m.sync();
  await m.mine(); // an empty block at the recorded height
  await m.sync();
  const l = await listingRow(listingId);
  assert.deepEqual([l.state, l.utxo_height], ['active', recorded - 1]);
  assert.deepEqual(await book(s.asset), [1, 32_000]);
  // And the rollback now follows the real height.
  await m.devnet.reorg(2);
  await m.sync();
  assert.equal((await listingRow(listingId)).state, 'pending');
});

void test('reuse: an asset UTXO that vanished in the reorg ends the listing invalid', async () => {
  const s = await seller('p2wpkh');
  // Fund the attach from a coinbase that has just matured (100 blocks: the attach confirms at
  // depth 100). A reorg of 2 makes it immature again, so the attach cannot return to the mempool
  // (Core's MaybeUpdateMempoolForReorg drops it the same way) and its output vanishes.
  const [hash] = await m.devnet.mine(1, s.w.address);
  const block = await m.devnet.bitcoin.getBlock(hash!);
  await m.devnet.mine(98);
  const coinbase = coinOf(m.devnet, block!.txs[0]!.txid, 0);
  const early = buildTx([{ wallet: s.w, coin: coinbase }], [{ script: s.w.script, amount: coinbase.amount - 2_000n }]);
  await assert.rejects(m.devnet.bitcoin.broadcast(early), /bad-txns-premature-spend-of-coinbase/, 'at depth 99 it is not spendable yet');
  await m.devnet.mine(1);
  const utxo = await attachFrom(s.w, coinbase, s.asset);
  await m.sync();
  const { listingId } = await listReused(s, utxo, 40_000);
  await m.sync();
  assert.deepEqual(await book(s.asset), [1, 40_000]);

  await m.devnet.reorg(2);
  assert.equal(await m.devnet.bitcoin.getTransaction(utxo.txid), null, 'the attach is gone');
  await m.sync();
  const l = await listingRow(listingId);
  assert.deepEqual([l.state, l.end_reason, l.signed_psbt], ['ended', 'invalid', null]);
  assert.deepEqual(await book(s.asset), [0, null]);
  assert.deepEqual(await eventsOf(s.w.address), ['listing_invalidated']);
});

void test('reuse: an asset UTXO confirmed again holding something else ends the listing invalid', async () => {
  const s = await seller('p2wpkh');
  const utxo = await m.attachDirect(s.w, s.asset);
  await m.sync();
  const { listingId } = await listReused(s, utxo, 45_000);
  await m.devnet.reorg(1);
  await m.sync();
  assert.equal((await listingRow(listingId)).state, 'pending');

  // The devnet re-parses a re-mined transaction the same way, so the block that confirms it
  // again is given to the watcher with Counterparty credits of another quantity.
  const tip = await m.devnet.bitcoin.getTip();
  const attach = await m.devnet.bitcoin.getTransaction(utxo.txid);
  const credit = (quantity: number) => ({
    event_index: 1, event: 'CREDIT', tx_hash: utxo.txid, block_index: tip.height + 1,
    params: { asset: s.asset, quantity, utxo: `${utxo.txid}:0`, utxo_address: s.w.address, calling_function: 'attach to utxo' },
  });
  const block = (events: ReturnType<typeof credit>[]) => ({
    block: { height: tip.height + 1, hash: 'ee'.repeat(32), prev_hash: tip.hash, time: now(), txs: [{ txid: utxo.txid, hex: attach!.hex }] },
    events,
    seenAt: m.clock.now(),
  });
  const watcher = listingsWatcher(m.ctx.chain, m.ctx.logger);
  // Exactly the unit: active again (then undone, this block is not real).
  await assert.rejects(
    m.ctx.store.db.transaction().execute(async (tx) => {
      await watcher.onBlock(tx, block([credit(1)]), undefined);
      const l = await tx.selectFrom('listings').selectAll().where('id', '=', listingId).executeTakeFirstOrThrow();
      assert.deepEqual([l.state, l.utxo_height], ['active', tip.height + 1]);
      throw new Error('undo');
    }),
    /undo/,
  );
  await m.ctx.store.db.transaction().execute((tx) => watcher.onBlock(tx, block([credit(2)]), undefined));
  const l = await listingRow(listingId);
  assert.deepEqual([l.state, l.end_reason, l.signed_psbt], ['ended', 'invalid', null]);
  assert.deepEqual(await eventsOf(s.w.address), ['listing_invalidated']);
});

void test('a sold unit whose attach a reorg reopened is verified again when it confirms again: invalid, the draft fails and the operator is told its buyer gets nothing', async () => {
  const s = await seller('p2wpkh');
  const { draftId, listingId, utxo } = await listAttached(s, 40_000);
  const buyer = await newBuyer(m, 'p2wpkh', `rg-${++n}`);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: listingId }], fee_rate: 2 });
  const sale = await complete(m, buyer, q.id as string, signQuote(q, buyer.w));
  assert.equal(sale.status, 200, JSON.stringify(sale.body));
  // A reorg takes the attach's block (and the buyer's funding) away; the sale waits in the mempool.
  const confirmations = (await m.devnet.bitcoin.getTxOut(utxo.txid, 0, false))!.confirmations;
  await m.devnet.reorg(confirmations);
  await m.sync();
  assert.equal((await draftOf(s.token, draftId)).status, 'withdrawn', 'the rollback reopened the completed draft');
  assert.equal((await listingRow(listingId)).state, 'reserved', 'its sale is in flight');

  // The block that mines the attach again, as Counterparty would parse it: valid, or invalid when
  // the balance it attached was not the seller's in this chain (simulated day of CI seed 3202).
  const tip = await m.devnet.bitcoin.getTip();
  const attach = (await m.devnet.bitcoin.getTransaction(utxo.txid))!;
  const block = (status: string) => ({
    block: { height: tip.height + 1, hash: 'ef'.repeat(32), prev_hash: tip.hash, time: now(), txs: [{ txid: utxo.txid, hex: attach.hex }] },
    events: [
      { event_index: 1, event: 'ATTACH_TO_UTXO', tx_hash: utxo.txid, block_index: tip.height + 1, params: { status, asset: s.asset, quantity: 1, destination: `${utxo.txid}:0` } },
      ...(status === 'valid' ? [{ event_index: 2, event: 'CREDIT', tx_hash: utxo.txid, block_index: tip.height + 1, params: { asset: s.asset, quantity: 1, utxo: `${utxo.txid}:0` } }] : []),
    ],
    seenAt: m.clock.now(),
  });
  const errors: Array<{ obj: Record<string, any>; msg: string }> = [];
  const log = Object.assign(Object.create(m.ctx.logger), { error: (obj: Record<string, any>, msg: string) => void errors.push({ obj, msg }) });
  const watcher = listingsWatcher(m.ctx.chain, log);
  const draftRow = () => m.ctx.store.db.selectFrom('listing_drafts').selectAll().where('id', '=', draftId).executeTakeFirstOrThrow();

  // Valid: the confirmation is recorded again, nothing else changes (then undone: this block is not real).
  await assert.rejects(
    m.ctx.store.db.transaction().execute(async (tx) => {
      await watcher.onBlock(tx, block('valid'), undefined);
      const d = await tx.selectFrom('listing_drafts').selectAll().where('id', '=', draftId).executeTakeFirstOrThrow();
      assert.deepEqual([d.status, d.confirmed_height, d.last_error], ['completed', tip.height + 1, null]);
      throw new Error('undo');
    }),
    /undo/,
  );
  assert.equal(errors.length, 0, JSON.stringify(errors));

  // Invalid: the draft fails with Counterparty's reason, and the sale is named for the operator.
  await m.ctx.store.db.transaction().execute((tx) => watcher.onBlock(tx, block('invalid: insufficient funds for transfer'), undefined));
  const d = await draftRow();
  assert.deepEqual([d.status, d.last_error, d.confirmed_height], ['failed', 'attach invalid: insufficient funds for transfer', tip.height + 1]);
  assert.equal((await draftOf(s.token, draftId)).status, 'failed');
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.match(errors[0]!.msg, /sale delivers nothing/);
  assert.equal(errors[0]!.obj.listing_id, listingId);
  assert.deepEqual(errors[0]!.obj.fills.map((f: { buyer: string; txid: string }) => [f.buyer, f.txid]), [[buyer.w.address, q.expected_txid]]);
  // The parties are told in their feeds, not only the operator.
  const undelivered = async (who: { w: TestWallet; token: string }, kind: string) => {
    const r = await m.call('GET', `/v1/address/${who.w.address}/events`, who.token);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.result.filter((e: any) => e.kind === kind).map((e: any) => [e.role, e.status, e.listing_id, e.txid, e.delivery_failure, e.asset_utxo?.txid]);
  };
  const told = (role: string) => [[role, 'undelivered', listingId, q.expected_txid, 'attach invalid: insufficient funds for transfer', utxo.txid]];
  assert.deepEqual(await undelivered(buyer, 'purchase_undelivered'), told('buyer'));
  assert.deepEqual(await undelivered(s, 'sale_undelivered'), told('seller'));

  // A reorg takes that block away: the failure and both events go with it.
  await m.ctx.store.db.transaction().execute((tx) => watcher.rollback(tx, tip.height + 1));
  assert.equal((await draftRow()).status, 'awaiting_indexer');
  assert.deepEqual([await undelivered(buyer, 'purchase_undelivered'), await undelivered(s, 'sale_undelivered')], [[], []]);
  // Mined again, invalid again: told again (the same event ids), and the operator again.
  await m.ctx.store.db.transaction().execute((tx) => watcher.onBlock(tx, block('invalid: insufficient funds for transfer'), undefined));
  assert.equal((await draftRow()).status, 'failed');
  assert.deepEqual(await undelivered(buyer, 'purchase_undelivered'), told('buyer'));
  assert.deepEqual(await undelivered(s, 'sale_undelivered'), told('seller'));
  assert.equal(errors.length, 2, JSON.stringify(errors));
});

void test('a spend reorged out restores the listing and removes its event; the spend confirmed again ends it again; final at 3 confirmations', async () => {
  const s = await seller('p2wpkh');
  const { draftId, listingId, utxo } = await listAttached(s, 60_000);
  const signed = (await listingRow(listingId)).signed_psbt;
  assert.ok(signed);
  // A later second than the listing's, so the feed's newest-first order does not fall to the id tie-break.
  m.clock.advance(5_000);
  await spendElsewhere(s.w, utxo);
  await m.mine();
  await m.sync();
  const spentAt = await tipHeight();
  let l = await listingRow(listingId);
  assert.deepEqual([l.state, l.end_reason, l.spent_height, l.signed_psbt], ['ended', 'invalid', spentAt, signed]);
  assert.deepEqual(await eventsOf(s.w.address), ['listing_invalidated']);
  assert.deepEqual(await ownerFeed(s), [['listing_invalidated', listingId]]);
  assert.deepEqual(await publicFeed(s.asset), [['delisted', 'invalid'], ['listed', null]]);
  assert.deepEqual(await book(s.asset), [0, null]);
  const ended = await draftOf(s.token, draftId);
  assert.deepEqual([ended.listing_status, ended.listing_end_reason], ['ended', 'invalid']);
  assert.equal(JSON.stringify(ended).includes(signed), false, 'the kept half is never shown');
  // Ended means unusable: it cannot be delisted or repriced.
  const delist = await m.call('POST', `/v1/listings/${listingId}/delist`, s.token);
  assert.deepEqual([delist.status, delist.body.code], [409, 'state_changed']);
  const reprice = await m.call('POST', '/v1/listings/batch', s.token, { action: 'reprice_preflight', listings: [{ listing_id: listingId, price_sats: 61_000 }] });
  assert.deepEqual([reprice.status, reprice.body.code], [409, 'state_changed']);

  await m.devnet.reorg(1); // the spending block goes; the spend waits in the mempool
  await m.sync();
  l = await listingRow(listingId);
  assert.deepEqual([l.state, l.end_reason, l.spent_height, l.ended_at, l.signed_psbt], ['active', null, null, null, signed]);
  assert.deepEqual(await eventsOf(s.w.address), [], 'events reflect current state');
  assert.deepEqual(await ownerFeed(s), []);
  assert.deepEqual(await publicFeed(s.asset), [['listed', null]]);
  assert.deepEqual(await book(s.asset), [1, 60_000]);
  const restored = await draftOf(s.token, draftId);
  assert.deepEqual([restored.status, restored.listing_status, restored.listing_end_reason], ['completed', 'active', null]);

  await m.mine(); // the spend confirms again
  await m.sync();
  const again = await tipHeight();
  l = await listingRow(listingId);
  assert.deepEqual([l.state, l.end_reason, l.spent_height, l.signed_psbt], ['ended', 'invalid', again, signed]);
  assert.deepEqual(await eventsOf(s.w.address), ['listing_invalidated']);
  assert.deepEqual(await ownerFeed(s), [['listing_invalidated', listingId]]);

  await m.mine(2);
  await m.sync();
  l = await listingRow(listingId);
  assert.equal(l.signed_psbt, null, 'three confirmations: the half is wiped');
  await m.devnet.reorg(3); // deeper than finality: the ending stands
  await m.sync();
  l = await listingRow(listingId);
  assert.deepEqual([l.state, l.end_reason, l.signed_psbt], ['ended', 'invalid', null]);
  assert.deepEqual(await book(s.asset), [0, null]);
});

void test('a restored listing past its expiry ends expired instead', async () => {
  const s = await seller('p2tr');
  const { listingId, utxo } = await listAttached(s, 70_000, 3600);
  await spendElsewhere(s.w, utxo);
  await m.mine();
  await m.sync();
  assert.equal((await listingRow(listingId)).end_reason, 'invalid');
  m.clock.advance(3601_000);
  await m.devnet.reorg(1);
  await m.sync();
  const l = await listingRow(listingId);
  assert.deepEqual([l.state, l.end_reason, l.signed_psbt], ['ended', 'expired', null]);
  assert.deepEqual(await eventsOf(s.w.address), ['listing_expired']);
});

void test('reuse: a reorg taking both the attach and the spend restores, then pends; mined again, the spend ends it again', async () => {
  const s = await seller('p2wpkh');
  const utxo = await m.attachDirect(s.w, s.asset);
  await m.sync();
  const { listingId } = await listReused(s, utxo, 35_000);
  const spend = await spendElsewhere(s.w, utxo); // the fee coin is mined by the faucet first
  await m.mine();
  await m.sync();
  assert.deepEqual(await eventsOf(s.w.address), ['listing_invalidated']);

  await m.devnet.reorg(3); // the attach, the fee coin and the spend return to the mempool
  await m.sync();
  const l = await listingRow(listingId);
  assert.deepEqual([l.state, l.utxo_height, l.spent_height], ['pending', null, null]);
  assert.deepEqual(await eventsOf(s.w.address), []);
  assert.deepEqual(await book(s.asset), [0, null]);

  await m.mine();
  await m.sync();
  assert.ok((await m.devnet.bitcoin.getTransaction(spend))!.confirmations >= 1);
  const after = await listingRow(listingId);
  assert.deepEqual([after.state, after.end_reason], ['ended', 'invalid']);
  assert.equal(after.spent_height, await tipHeight());
  assert.deepEqual(await eventsOf(s.w.address), ['listing_invalidated']);
  assert.deepEqual(await book(s.asset), [0, null]);
});
