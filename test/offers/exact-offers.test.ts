/**
 * Filling bids with real keys on the devnet: exact authorizations signed by the bidder, the
 * seller's inbox and accept (with and without a CPFP child), on a listed and an unlisted unit,
 * in both delivery modes; the unit at the bidder's delivery after mining; fills, retired
 * siblings and events; bad signatures and templates; and the races.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SigHash } from '@scure/btc-signer';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { assertLogReplaysFeeds } from '../helpers/event-log.js';
import { openMarket, signPsbt, editPsbt, type Market } from '../helpers/market.js';
import { newSeller, listUnit, type Seller } from '../helpers/listing.js';
import { heldAt, heldOn, newBuyer, quoteOk, signQuote, complete } from '../helpers/checkout.js';
import { buildTx, coinOf, txidOf as buildTxid } from '../helpers/devnet.js';
import { authorizeOne, newBidder, placeFunded } from './exact-helpers.js';
import { eventId } from '../../src/trade/event-rows.js';
import { retireAuthorizations } from '../../src/modules/offers/index.js';
import { exposeListing } from '../../src/modules/listings/lifecycle.js';

let m: Market;
let seller: Seller;
const UNITS = 16;

before(async () => {
  m = await openMarket();
  // One unit per attach below (nine: the back-out race test made it more than 8), a few spare.
  seller = await newSeller(m, 'p2wpkh', 'exact-seller', UNITS);
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'exact', name: 'Exact' }], artists: [], assets: [{ asset: seller.asset, collection: 'exact', max_supply_units: UNITS }] });
  await m.sync();
});
after(async () => m?.close());

/** A unit of the seller's asset attached outside the market, with 3 confirmations. */
async function unit() {
  const at = await m.attachDirect(seller.w, seller.asset, '1');
  await m.mine(2);
  await m.sync();
  // An attach beyond the seller's balance is invalid on Counterparty and leaves the output empty:
  // say so here rather than as the authorization's target_unavailable.
  const held = await m.devnet.counterparty.getUtxoBalances(`${at.txid}:${at.vout}`);
  assert.deepEqual(held.map((b) => [b.asset, b.quantity_raw]), [[seller.asset, '1']], 'the seller still had a unit to attach');
  return at;
}

async function acceptWith(id: string, opts: { feeRate?: number; tamper?: boolean } = {}) {
  const pf = await m.call('POST', `/v1/exact-offer-authorizations/${id}/accept-preflight`, seller.token, opts.feeRate ? { fee_rate: opts.feeRate } : {});
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  const p = pf.body.result;
  const parent = signPsbt(p.psbt_hex, seller.w, [1], SigHash.ALL);
  const child = p.cpfp ? signPsbt(p.cpfp.psbt_hex, seller.w, [0], SigHash.ALL) : undefined;
  return { pf: p, parent, child, send: (body: Record<string, unknown>) => m.call('POST', `/v1/exact-offer-authorizations/${id}/accept`, seller.token, body) };
}

/** A confirmed one-slot asset offer at `price`, a final unit of the seller's, its authorization, and the seller's signed accept. */
async function authorizedAccept(price: number) {
  const b = await newBidder(m);
  const placed = await placeFunded(m, b, price, 1, [{ scope: 'asset', asset: seller.asset }]);
  await m.mine();
  await m.sync();
  const at = await unit();
  const { a } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, at);
  return { b, placed, at, a, acc: await acceptWith(a.authorization_id) };
}

/** A confirmed one-slot bid on the seller's asset at `price`, and a final (3 confirmations) listed unit of the seller's at `listPrice`. */
async function bidOverListedUnit(price: number, listPrice: number) {
  const b = await newBidder(m);
  const placed = await placeFunded(m, b, price, 1, [{ scope: 'asset', asset: seller.asset }]);
  await m.mine();
  await m.sync();
  const listing = await listUnit(m, seller, listPrice);
  await m.mine(2);
  await m.sync();
  return { b, placed, listing };
}

describe('exact offers', () => {
  void it('an unlisted unit, detached delivery, no child: authorize, inbox, accept, deliver; siblings retire', async () => {
    const b = await newBidder(m);
    const receive = (await newBidder(m, [])).w.address;
    const placed = await placeFunded(m, b, 30_000, 1, [{ scope: 'asset', asset: seller.asset }, { scope: 'collection', collection: 'exact' }], { receive });
    await m.mine();
    await m.sync();
    const [offerId, siblingId] = placed.funding_slots[0]!.offer_ids;
    const at = await unit();
    const { a, act } = await authorizeOne(m, b, offerId!, at, 3);
    assert.equal(act.status, 200, JSON.stringify(act.body));
    assert.equal(act.body.result.status, 'active');
    assert.deepEqual(act.body.result.signature_validity.bitcoin_invalidation, { type: 'spend_funding_outpoint', outpoint: { txid: placed.funding_slots[0]!.txid, vout: 0 } });
    assert.equal(act.body.result.signature_validity.bitcoin_expires_at, null);

    const inbox = await m.call('GET', `/v1/address/${seller.w.address}/exact-offers`, seller.token);
    assert.equal(inbox.status, 200, JSON.stringify(inbox.body));
    const row = inbox.body.result.find((r: any) => r.authorization_id === a.authorization_id);
    assert.ok(row);
    assert.equal(row.requires_buyer_action, false);
    assert.equal(row.price_sats, 30_000);
    assert.equal(row.offer_scope, 'asset');
    assert.equal(row.platform_fee_sats, 600);
    assert.equal(row.seller_proceeds_sats, 30_000 + 330 - 600 - row.prefunded_fee_sats);
    // Not the seller's inbox for anyone else.
    assert.equal((await m.call('GET', `/v1/address/${seller.w.address}/exact-offers`, b.token)).status, 403);

    const acc = await acceptWith(a.authorization_id);
    assert.equal(acc.pf.requires_cpfp, false);
    // A foreign id and a missing one are the same 404.
    assert.equal((await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, b.token, { psbt_hex: acc.parent })).status, 404);
    assert.equal((await m.call('POST', '/v1/exact-offer-authorizations/ea_missing/accept', seller.token, { psbt_hex: acc.parent })).status, 404);
    const r = await acc.send({ psbt_hex: acc.parent });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.already_completed, false);
    const again = await acc.send({ psbt_hex: acc.parent });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.result.already_completed, true);

    await m.mine();
    await m.sync();
    assert.equal(await heldAt(m, receive, seller.asset), 1n, 'the unit reached the delivery address');
    const fill = await m.ctx.store.db.selectFrom('fills').selectAll().where('ref_id', '=', offerId!).executeTakeFirstOrThrow();
    assert.deepEqual([fill.kind, fill.state, fill.buyer, fill.payer, fill.seller], ['offer', 'confirmed', receive, b.w.address, seller.w.address]);
    const states = await m.ctx.store.db.selectFrom('offers').select(['id', 'state', 'end_reason']).where('id', 'in', [offerId!, siblingId!]).execute();
    assert.deepEqual(Object.fromEntries(states.map((s) => [s.id, [s.state, s.end_reason]])), { [offerId!]: ['filled', 'filled'], [siblingId!]: ['retired', 'superseded'] });
    const bidderFeed = (await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result.map((e: any) => e.kind);
    for (const k of ['offer_accepted', 'exact_authorization_used', 'offer_retired']) assert.ok(bidderFeed.includes(k), `${k} in ${bidderFeed}`);
    const sellerFeed = (await m.call('GET', `/v1/address/${seller.w.address}/events`, seller.token)).body.result.map((e: any) => e.kind);
    assert.ok(sellerFeed.includes('sale_confirmed'), JSON.stringify(sellerFeed));
    await m.ctx.cache.clear();
    const sales = (await m.call('GET', '/v1/events?kind=sales', null)).body.result;
    assert.ok(sales.some((e: any) => e.fill_kind === 'offer' && e.buyer === receive));
  });

  void it('a collection-scoped offer accepted: offer_accepted waits for the block that spends the slot; the public feed ends it `filled`', async () => {
    const b = await newBidder(m);
    const placed = await placeFunded(m, b, 24_000, 1, [{ scope: 'collection', collection: 'exact' }]);
    await m.mine();
    await m.sync();
    const offerId = placed.funding_slots[0]!.offer_ids[0]!;
    const { a, act } = await authorizeOne(m, b, offerId, await unit());
    assert.equal(act.status, 200, JSON.stringify(act.body));
    const acc = await acceptWith(a.authorization_id);
    const r = await acc.send({ psbt_hex: acc.parent });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const parentTxid = r.body.result.txid as string;
    const accepted = async () => ((await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result as any[]).filter((e) => e.kind === 'offer_accepted' && e.offer_id === offerId);
    const ended = async () => {
      await m.ctx.cache.clear();
      return ((await m.call('GET', '/v1/events?kind=offers&limit=100', null)).body.result as any[]).filter((e) => e.event_id === eventId('offer_ended', offerId)).map((e) => [e.kind, e.reason]);
    };

    // Journaled and relayed, not yet seen in a block: the offer is filled, its offer_accepted not yet shown (spec, owner feed rule 8).
    assert.equal((await m.ctx.store.db.selectFrom('offers').select('state').where('id', '=', offerId).executeTakeFirstOrThrow()).state, 'filled');
    assert.deepEqual(await accepted(), []);
    // A collection offer's sale names neither the offer nor its bidder: its ending says `filled`.
    assert.deepEqual(await ended(), [['collection_offer_ended', 'filled']]);

    m.clock.advance(30_000);
    await m.mine();
    await m.sync();
    const seen = await m.ctx.store.db.selectFrom('indexed_blocks').select('seen_at').orderBy('height', 'desc').limit(1).executeTakeFirstOrThrow();
    const ev = await accepted();
    assert.equal(ev.length, 1, 'offer_accepted once the watcher sees the slot spent by the parent');
    assert.deepEqual([ev[0].at, ev[0].txid, ev[0].status], [Math.floor(Number(seen.seen_at) / 1000), parentTxid, 'filled']);
    assert.deepEqual(await ended(), [['collection_offer_ended', 'filled']]);

    // A reorg disconnects the parent's block: the slot is no longer seen spent, the event goes; mined again, it is back.
    await m.devnet.reorg(1);
    await m.sync();
    assert.deepEqual(await accepted(), []);
    await m.mine();
    await m.sync();
    assert.equal((await accepted()).length, 1);
    await assertLogReplaysFeeds(m);
  });

  void it('a listed unit, attached delivery, with a CPFP child when the fee rate rose; the listing is sold', async () => {
    const b = await newBidder(m);
    const placed = await placeFunded(m, b, 40_000, 1, [{ scope: 'asset', asset: seller.asset }], { mode: 'attached' });
    await m.mine();
    await m.sync();
    const listing = await listUnit(m, seller, 90_000);
    await m.mine(2);
    await m.sync();
    const outpoint = { txid: listing.utxo_txid, vout: listing.utxo_vout };
    const { a, act } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, outpoint, 1);
    assert.equal(act.status, 200, JSON.stringify(act.body));
    m.devnet.feeEstimates = { ...m.devnet.feeEstimates, half_hour: 6 };
    try {
      const acc = await acceptWith(a.authorization_id);
      assert.equal(acc.pf.requires_cpfp, true);
      assert.ok(acc.pf.cpfp.child_fee_sats > 0);
      // Without the child: refused, naming the fee it needs.
      const none = await acc.send({ psbt_hex: acc.parent });
      assert.equal(none.status, 400, JSON.stringify(none.body));
      assert.equal(none.body.required_child_fee_sats, acc.pf.cpfp.child_fee_sats);
      // A child that pays one sat less than needed.
      const cheap = editPsbt(acc.pf.cpfp.psbt_hex, (tx) => tx.updateOutput(0, { amount: tx.getOutput(0).amount! + 1n }));
      const under = await acc.send({ psbt_hex: acc.parent, cpfp_psbt_hex: signPsbt(cheap, seller.w, [0], SigHash.ALL) });
      assert.equal(under.status, 422, JSON.stringify(under.body));
      assert.equal(under.body.code, 'invalid_transaction');
      const ok = await acc.send({ psbt_hex: acc.parent, cpfp_psbt_hex: acc.child });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.ok(ok.body.result.child_txid);
    } finally {
      m.devnet.feeEstimates = { ...m.devnet.feeEstimates, half_hour: 3 };
    }
    assert.equal((await m.ctx.store.db.selectFrom('listings').select('state').where('id', '=', listing.id).executeTakeFirstOrThrow()).state, 'reserved');
    await m.mine();
    await m.sync();
    assert.equal((await m.ctx.store.db.selectFrom('listings').select('state').where('id', '=', listing.id).executeTakeFirstOrThrow()).state, 'sold');
    assert.equal(await heldOn(m, `${a.parent_txid}:0`, seller.asset), 1n, 'the unit sits on the bidder\'s 330-sat output');
  });

  void it('refuses a wrong sighash, a changed template, an outpoint under 3 confirmations, and a seller signature over a changed parent', async () => {
    const b = await newBidder(m);
    const placed = await placeFunded(m, b, 25_000, 1, [{ scope: 'asset', asset: seller.asset }]);
    await m.mine();
    await m.sync();
    const offerId = placed.funding_slots[0]!.offer_ids[0]!;
    const fresh = await m.attachDirect(seller.w, seller.asset, '1');
    await m.sync();
    const young = await m.call('POST', `/v1/offers/${offerId}/exact-authorizations`, b.token, { outpoints: [fresh] });
    assert.equal(young.status, 409, JSON.stringify(young.body));
    assert.equal(young.body.code, 'target_unavailable');
    await m.mine(2);
    await m.sync();
    const wrong = await authorizeOne(m, b, offerId, fresh, 3, SigHash.SINGLE_ANYONECANPAY);
    assert.equal(wrong.act.status, 422, JSON.stringify(wrong.act.body));
    assert.equal(wrong.act.body.code, 'signature_invalid');
    const changed = editPsbt(wrong.a.psbt_hex, (tx) => tx.updateOutput(0, { amount: 1n }));
    const t = await m.call('POST', `/v1/exact-offer-authorizations/${wrong.a.authorization_id}/bidder-psbt`, b.token, { psbt_hex: signPsbt(changed, b.w, [0], SigHash.ALL) });
    assert.equal(t.status, 422);
    assert.equal(t.body.code, 'template_mismatch');
    const good = await m.call('POST', `/v1/exact-offer-authorizations/${wrong.a.authorization_id}/bidder-psbt`, b.token, { psbt_hex: signPsbt(wrong.a.psbt_hex, b.w, [0], SigHash.ALL) });
    assert.equal(good.status, 200, JSON.stringify(good.body));
    const acc = await acceptWith(wrong.a.authorization_id);
    const otherParent = editPsbt(acc.pf.psbt_hex, (tx) => tx.updateOutput(1, { amount: tx.getOutput(1).amount! + 100n }));
    const bad = await acc.send({ psbt_hex: signPsbt(otherParent, seller.w, [1], SigHash.ALL) });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(bad.body.code, 'template_mismatch');
    const badSig = await acc.send({ psbt_hex: signPsbt(acc.pf.psbt_hex, seller.w, [1], SigHash.NONE) });
    assert.equal(badSig.status, 422);
    assert.equal(badSig.body.code, 'signature_invalid');
  });

  void it('bulk selection flags two authorizations over one slot; two sellers racing for one slot: one wins', async () => {
    const b = await newBidder(m);
    const placed = await placeFunded(m, b, 26_000, 1, [{ scope: 'asset', asset: seller.asset }, { scope: 'collection', collection: 'exact' }]);
    await m.mine();
    await m.sync();
    const [o1, o2] = placed.funding_slots[0]!.offer_ids;
    const u1 = await unit();
    const seller2 = await newSeller(m, 'p2tr', 'exact-seller-2', 1, seller.asset);
    const u2 = await m.attachDirect(seller2.w, seller.asset, '1');
    await m.mine(2);
    await m.sync();
    const x = await authorizeOne(m, b, o1!, u1);
    const y = await authorizeOne(m, b, o2!, u2);
    assert.equal(x.act.status, 200);
    assert.equal(y.act.status, 200, JSON.stringify(y.act.body));
    const sel = await m.call('POST', '/v1/exact-offer-selections/validate', seller.token, { authorization_ids: [x.a.authorization_id, 'ea_nope'] });
    assert.deepEqual(sel.body.result.map((r: any) => r.code), [null, 'not_found']);
    const dup = await m.call('POST', '/v1/exact-offer-selections/validate', seller.token, { authorization_ids: [x.a.authorization_id, x.a.authorization_id] });
    assert.equal(dup.status, 400);
    // The seller's own second unit, authorized under the sibling offer over the same funding slot:
    // chosen together with x they are refused whole, 409 duplicate_funding_slot (issue 31 item 1).
    const z = await authorizeOne(m, b, o2!, await unit());
    assert.equal(z.act.status, 200, JSON.stringify(z.act.body));
    const both = await m.call('POST', '/v1/exact-offer-selections/validate', seller.token, { authorization_ids: [x.a.authorization_id, z.a.authorization_id] });
    assert.deepEqual([both.status, both.body.code, both.body.authorization_ids], [409, 'duplicate_funding_slot', [x.a.authorization_id, z.a.authorization_id]], JSON.stringify(both.body));
    assert.equal(typeof both.body.funding_slot_id, 'string');

    const ax = await acceptWith(x.a.authorization_id);
    const pf2 = await m.call('POST', `/v1/exact-offer-authorizations/${y.a.authorization_id}/accept-preflight`, seller2.token, {});
    assert.equal(pf2.status, 200, JSON.stringify(pf2.body));
    const p2 = signPsbt(pf2.body.result.psbt_hex, seller2.w, [1], SigHash.DEFAULT);
    const [r1, r2] = await Promise.all([ax.send({ psbt_hex: ax.parent }), m.call('POST', `/v1/exact-offer-authorizations/${y.a.authorization_id}/accept`, seller2.token, { psbt_hex: p2 })]);
    assert.deepEqual([r1.status, r2.status].sort(), [200, 409], `${JSON.stringify(r1.body)} ${JSON.stringify(r2.body)}`);
    const settlements = await m.ctx.store.db.selectFrom('settlements').select('id').where('kind', '=', 'exact_offer').where('ref_id', 'in', [x.a.authorization_id, y.a.authorization_id]).execute();
    assert.equal(settlements.length, 1);
  });

  void it('an accept racing a checkout of the same listed unit: exactly one wins, nothing broadcast for the other', async () => {
    const b = await newBidder(m);
    const placed = await placeFunded(m, b, 50_000, 1, [{ scope: 'asset', asset: seller.asset }]);
    await m.mine();
    const listing = await listUnit(m, seller, 60_000);
    await m.mine(2);
    await m.sync();
    const { a, act } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, { txid: listing.utxo_txid, vout: listing.utxo_vout });
    assert.equal(act.status, 200, JSON.stringify(act.body));
    const buyer = await newBuyer(m, 'p2wpkh', 'exact-race');
    const q = await quoteOk(m, buyer, { lines: [{ listing_id: listing.id }] });
    const acc = await acceptWith(a.authorization_id);
    const [c, s] = await Promise.all([complete(m, buyer, q.id, signQuote(q, buyer.w)), acc.send({ psbt_hex: acc.parent })]);
    assert.deepEqual([c.status, s.status].sort(), [200, 409], `${JSON.stringify(c.body)} ${JSON.stringify(s.body)}`);
    const claimed = await m.ctx.store.db.selectFrom('outpoint_claims').select('settlement_id').where('outpoint', '=', `${listing.utxo_txid}:${listing.utxo_vout}`).execute();
    assert.equal(claimed.length, 1);
    // Once the winner confirms, the loser's side is settled: a checkout that took the unit retires the authorization.
    await m.mine();
    await m.sync();
    const auth = await m.ctx.store.db.selectFrom('exact_authorizations').select(['state', 'end_reason']).where('id', '=', a.authorization_id).executeTakeFirstOrThrow();
    if (c.status === 200) assert.deepEqual(auth, { state: 'retired', end_reason: 'asset_moved' });
    else assert.equal(auth.state, 'used');
    assert.equal((await m.ctx.store.db.selectFrom('listings').select('state').where('id', '=', listing.id).executeTakeFirstOrThrow()).state, 'sold');
  });

  void it('the parent lands and the seller\'s child is refused: the sale stands, its claims kept, the seller told; it confirms at the parent\'s fee', async () => {
    const b = await newBidder(m);
    const placed = await placeFunded(m, b, 26_000, 1, [{ scope: 'asset', asset: seller.asset }]);
    await m.mine();
    await m.sync();
    const at = await unit();
    const { a } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, at);
    m.devnet.feeEstimates = { ...m.devnet.feeEstimates, half_hour: 6 };
    let r;
    try {
      const acc = await acceptWith(a.authorization_id);
      assert.equal(acc.pf.requires_cpfp, true);
      // The child pays more than enough but leaves a dust output: Core refuses it alone, after its
      // parent (which pays its own prefunded fee) already entered the mempool.
      const dusty = editPsbt(acc.pf.cpfp.psbt_hex, (tx) => tx.updateOutput(0, { amount: 100n }));
      r = await acc.send({ psbt_hex: acc.parent, cpfp_psbt_hex: signPsbt(dusty, seller.w, [0], SigHash.ALL) });
    } finally {
      m.devnet.feeEstimates = { ...m.devnet.feeEstimates, half_hour: 3 };
    }
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.settlement_state, 'relayed');
    assert.equal(r.body.result.child_state, 'refused');
    assert.equal(r.body.result.child_reason, 'dust');
    assert.ok(await m.devnet.bitcoin.getMempoolEntry(a.parent_txid), 'the parent is in the mempool');
    const s = (await m.ctx.journal.byId(r.body.result.settlement_id))!;
    assert.equal(s.txid, a.parent_txid, 'the settlement follows the member that landed');
    const claims = await m.ctx.store.db.selectFrom('outpoint_claims').select('outpoint').where('settlement_id', '=', s.id).execute();
    assert.deepEqual(claims.map((c) => c.outpoint).sort(), [`${at.txid}:${at.vout}`, `${placed.funding_slots[0]!.txid}:${placed.funding_slots[0]!.vout}`].sort());
    const feed = (await m.call('GET', `/v1/address/${seller.w.address}/events`, seller.token)).body.result;
    assert.ok(feed.some((e: any) => e.kind === 'exact_offer_child_refused' && e.txid === a.parent_txid), JSON.stringify(feed.map((e: any) => e.kind)));
    // Recovery re-relays only what landed (the refused child is never sent again).
    await m.ctx.journal.recover();
    assert.equal((await m.ctx.journal.byId(s.id))!.state, 'relayed');
    await m.mine();
    await m.sync();
    assert.equal((await m.ctx.journal.byId(s.id))!.state, 'confirmed');
    const fill = await m.ctx.store.db.selectFrom('fills').select(['state', 'txid']).where('settlement_id', '=', s.id).executeTakeFirstOrThrow();
    assert.deepEqual(fill, { state: 'confirmed', txid: a.parent_txid });
  });

  void it('back-out race, the seller wins: an accept package paying more replaces the bidder\'s unconfirmed self-spend (package RBF, as on Core 28+)', async () => {
    const b = await newBidder(m);
    const placed = await placeFunded(m, b, 28_000, 1, [{ scope: 'asset', asset: seller.asset }]);
    await m.mine();
    await m.sync();
    const at = await unit();
    const { a } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, at, 3);
    const slot = placed.funding_slots[0]!;
    const coin = coinOf(m.devnet, slot.txid, slot.vout);
    // The bidder backs out by spending its slot at ~4.5 sat/vB: above the parent's own 3 sat/vB.
    const spend = buildTx([{ wallet: b.w, coin }], [{ script: b.w.script, amount: coin.amount - 500n }]);
    await m.devnet.bitcoin.broadcast(spend);
    m.devnet.feeEstimates = { ...m.devnet.feeEstimates, half_hour: 8 };
    let r;
    try {
      const acc = await acceptWith(a.authorization_id);
      assert.equal(acc.pf.requires_cpfp, true);
      r = await acc.send({ psbt_hex: acc.parent, cpfp_psbt_hex: acc.child });
    } finally {
      m.devnet.feeEstimates = { ...m.devnet.feeEstimates, half_hour: 3 };
    }
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.settlement_state, 'relayed');
    assert.equal(r.body.result.child_state, 'relayed');
    assert.equal(await m.devnet.bitcoin.getTransaction(buildTxid(spend)), null, 'the bidder\'s spend was replaced');
    await m.mine();
    await m.sync();
    const fill = await m.ctx.store.db.selectFrom('fills').select(['state']).where('settlement_id', '=', r.body.result.settlement_id).executeTakeFirstOrThrow();
    assert.equal(fill.state, 'confirmed');
    const offer = await m.ctx.store.db.selectFrom('offers').select(['state']).where('id', '=', a.offer_id).executeTakeFirstOrThrow();
    assert.equal(offer.state, 'filled');
    const bidderFeed = (await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result.map((e: any) => e.kind);
    assert.ok(bidderFeed.includes('offer_accepted'), JSON.stringify(bidderFeed));
    const sellerFeed = (await m.call('GET', `/v1/address/${seller.w.address}/events`, seller.token)).body.result;
    assert.ok(!sellerFeed.some((e: any) => e.kind === 'exact_offer_accept_conflicted' && e.authorization_id === a.authorization_id));
  });

  void it('a bidder who spends the funding output after the seller signed wins on chain: state_changed with mempool_reason (lost to a conflicting spend), claims released, recorded for the seller', async () => {
    const { b, placed, at, a, acc } = await authorizedAccept(27_000);
    const slot = placed.funding_slots[0]!;
    await m.devnet.bitcoin.broadcast(buildTx([{ wallet: b.w, coin: coinOf(m.devnet, slot.txid, slot.vout) }], () => [{ script: b.w.script, amount: 26_000n }]));
    const r = await acc.send({ psbt_hex: acc.parent });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, 'state_changed');
    assert.equal(r.body.claims_released, true);
    const left = await m.ctx.store.db.selectFrom('outpoint_claims').select('outpoint').where('outpoint', '=', `${at.txid}:${at.vout}`).execute();
    assert.equal(left.length, 0);
    const feed = (await m.call('GET', `/v1/address/${seller.w.address}/events`, seller.token)).body.result;
    assert.ok(feed.some((e: any) => e.kind === 'exact_offer_accept_conflicted' && e.authorization_id === a.authorization_id), JSON.stringify(feed.map((e: any) => e.kind)));

    // The seller tries again (sim day 9117): a new preflight gives the same parent, bytes the node
    // already refused. The answer is that refusal again, not a 500 from a second settlement row.
    const again = await acceptWith(a.authorization_id);
    assert.equal(again.parent, acc.parent, 'the authorization fixes the parent');
    const r2 = await again.send({ psbt_hex: again.parent });
    assert.deepEqual([r2.status, r2.body.code, r2.body.claims_released, r2.body.mempool_reason], [409, 'state_changed', true, r.body.mempool_reason], JSON.stringify(r2.body));
    const settlements = await m.ctx.store.db.selectFrom('settlements').select('state').where('ref_id', '=', a.authorization_id).execute();
    assert.deepEqual(settlements, [{ state: 'conflicted' }]);
    assert.equal((await m.ctx.store.db.selectFrom('outpoint_claims').select('outpoint').where('outpoint', '=', `${at.txid}:${at.vout}`).execute()).length, 0, 'nothing claimed');
  });
});

describe('exact offers: the bidder\'s spend replaces a relayed accept and is mined before recovery looks', () => {
  void it('the offer the release puts back is retired by the spend the block already showed: not active over a spent slot', async () => {
    const { b, placed, a, acc } = await authorizedAccept(26_500);
    const offerId = placed.funding_slots[0]!.offer_ids[0]!;
    const r = await acc.send({ psbt_hex: acc.parent });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const slot = placed.funding_slots[0]!;
    const coin = coinOf(m.devnet, slot.txid, slot.vout);
    // Paying far more than the accept's parent: full RBF evicts it from the node's mempool.
    const spend = buildTx([{ wallet: b.w, coin }], [{ script: b.w.script, amount: coin.amount - 20_000n }]);
    await m.devnet.bitcoin.broadcast(spend);
    assert.equal(await m.devnet.bitcoin.getTransaction(a.parent_txid), null, 'the accept was replaced');
    await m.mine();
    // The indexer meets the block first (its tip check runs every second; recovery later).
    await m.ctx.indexer.run();
    await m.ctx.journal.recover();
    await m.ctx.indexer.run();
    const s = await m.ctx.store.db.selectFrom('settlements').select('state').where('ref_id', '=', a.authorization_id).executeTakeFirstOrThrow();
    assert.equal(s.state, 'conflicted');
    const o = await m.ctx.store.db.selectFrom('offers').select(['state', 'end_reason', 'slot_id']).where('id', '=', offerId).executeTakeFirstOrThrow();
    assert.notEqual(o.state, 'active', 'an offer over a slot the chain spent is not live');
    const sl = await m.ctx.store.db.selectFrom('offer_slots').select(['state', 'spent_txid']).where('id', '=', o.slot_id).executeTakeFirstOrThrow();
    assert.deepEqual(sl, { state: 'spent', spent_txid: buildTxid(spend) });
  });
});

describe('exact offers: an accept released by mistake that the chain confirms', () => {
  void it('is used and filled again when its block arrives, even after its bidder cancelled the offer the release put back (sim day 9162)', async () => {
    const { b, placed, a, acc } = await authorizedAccept(28_000);
    const offerId = placed.funding_slots[0]!.offer_ids[0]!;
    const r = await acc.send({ psbt_hex: acc.parent });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { id: settlementId } = await m.ctx.store.db.selectFrom('settlements').select('id').where('ref_id', '=', a.authorization_id).executeTakeFirstOrThrow();
    // Released as the journal once did for a package a block had just mined ("txn-already-known").
    assert.equal(await m.ctx.journal.release(settlementId, 'rejected', 'txn-already-known'), true);
    const offer = async () => m.ctx.store.db.selectFrom('offers').select(['state', 'end_reason', 'slot_id']).where('id', '=', offerId).executeTakeFirstOrThrow();
    assert.equal((await offer()).state, 'active', 'the release put the offer back');
    const c = await m.call('POST', `/v1/offers/${offerId}/cancel`, b.token);
    assert.deepEqual(c.body.result, [{ offer_id: offerId, ok: true, status: 'cancelled' }]);

    await m.mine();
    await m.sync();
    assert.equal((await m.ctx.journal.byId(settlementId))!.state, 'confirmed');
    const o = await offer();
    assert.deepEqual([o.state, o.end_reason], ['filled', 'filled']);
    const slot = await m.ctx.store.db.selectFrom('offer_slots').select(['state', 'spent_txid']).where('id', '=', o.slot_id).executeTakeFirstOrThrow();
    assert.deepEqual(slot, { state: 'spent', spent_txid: a.parent_txid });
    const auth = await m.ctx.store.db.selectFrom('exact_authorizations').select(['state', 'settlement_id']).where('id', '=', a.authorization_id).executeTakeFirstOrThrow();
    assert.deepEqual(auth, { state: 'used', settlement_id: settlementId });
    const fill = await m.ctx.store.db.selectFrom('fills').select('state').where('ref_id', '=', offerId).executeTakeFirstOrThrow();
    assert.equal(fill.state, 'confirmed');
    // The bidder's feed no longer says cancelled: the retraction withdrew it, and the sale is there.
    const kinds = (await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result.map((e: any) => e.kind);
    assert.ok(!kinds.includes('offer_cancelled'), JSON.stringify(kinds));
    assert.ok(kinds.includes('exact_authorization_used'), JSON.stringify(kinds));
  });
});

describe('exact offers: a cancel that read the authorization before its bidder signed it', () => {
  void it('retires the active authorization and tells the bidder (exact_authorization_retired), though the row it read said awaiting_bidder', async () => {
    const { b, a } = await authorizedAccept(27_000);
    const row = await m.ctx.store.db.selectFrom('exact_authorizations').selectAll().where('id', '=', a.authorization_id).executeTakeFirstOrThrow();
    assert.equal(row.state, 'active');
    const stale = { ...row, state: 'awaiting_bidder' as const };
    const done = await m.ctx.store.db.transaction().execute((tx) => retireAuthorizations(tx, [stale], 'cancelled', Math.floor(Date.now() / 1000)));
    assert.equal(done.length, 1);
    const after = await m.ctx.store.db.selectFrom('exact_authorizations').select(['state', 'end_reason', 'bidder_signed_psbt']).where('id', '=', a.authorization_id).executeTakeFirstOrThrow();
    assert.deepEqual(after, { state: 'retired', end_reason: 'cancelled', bidder_signed_psbt: null });
    const feed = (await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result as Array<{ kind: string; data?: { authorization_id?: string } }>;
    assert.ok(feed.some((e) => e.kind === 'exact_authorization_retired'), JSON.stringify(feed.map((e) => e.kind)));
  });
});

describe('exact offers: a listed unit\'s accept released by mistake, the listing delisted, then confirmed', () => {
  void it('the listing the seller delisted after the release is sold when the block arrives (the unit moved)', async () => {
    const { b, placed, listing } = await bidOverListedUnit(29_000, 95_000);
    const { a, act } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, { txid: listing.utxo_txid, vout: listing.utxo_vout }, 1);
    assert.equal(act.status, 200, JSON.stringify(act.body));
    const acc = await acceptWith(a.authorization_id);
    const r = await acc.send({ psbt_hex: acc.parent, ...(acc.child ? { cpfp_psbt_hex: acc.child } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { id: settlementId } = await m.ctx.store.db.selectFrom('settlements').select('id').where('ref_id', '=', a.authorization_id).executeTakeFirstOrThrow();
    assert.equal(await m.ctx.journal.release(settlementId, 'rejected', 'txn-already-known'), true);
    const state = async () => (await m.ctx.store.db.selectFrom('listings').select('state').where('id', '=', listing.id).executeTakeFirstOrThrow()).state;
    assert.equal(await state(), 'active', 'the release put the listing back');
    const d = await m.call('POST', `/v1/listings/${listing.id}/delist`, seller.token);
    assert.equal(d.status, 200, JSON.stringify(d.body));
    await m.mine();
    await m.sync();
    assert.equal((await m.ctx.journal.byId(settlementId))!.state, 'confirmed');
    assert.equal(await state(), 'sold');
    const auth = await m.ctx.store.db.selectFrom('exact_authorizations').select(['state', 'claimed_listing_id']).where('id', '=', a.authorization_id).executeTakeFirstOrThrow();
    assert.deepEqual(auth, { state: 'used', claimed_listing_id: listing.id });
  });
});

describe('exact offers: an accept sells the unit of an exposed listing (sim day 9170)', () => {
  void it('the exposed listing ends when the accept confirms (its unit moved): not exposed for ever with a rotation that can only fail', async () => {
    const { b, placed, listing } = await bidOverListedUnit(31_000, 97_000);
    // Its half went public in a checkout that failed (test/checkout/exposure.test.ts makes one on the devnet).
    await m.ctx.store.db.updateTable('listings').set({ state: 'reserved' }).where('id', '=', listing.id).execute();
    const reserved = await m.ctx.store.db.selectFrom('listings').selectAll().where('id', '=', listing.id).executeTakeFirstOrThrow();
    assert.ok(await m.ctx.store.db.transaction().execute((tx) => exposeListing(tx, reserved, 'checkout_rejected', Math.floor(Date.now() / 1000), 'ab'.repeat(32))));
    const { a, act } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, { txid: listing.utxo_txid, vout: listing.utxo_vout });
    assert.equal(act.status, 200, JSON.stringify(act.body));
    const acc = await acceptWith(a.authorization_id);
    // No child: the accept's own transaction spends the unit, the one the journal's claim names.
    assert.equal(acc.pf.requires_cpfp, false);
    const r = await acc.send({ psbt_hex: acc.parent });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await m.mine();
    await m.sync();
    const row = await m.ctx.store.db.selectFrom('listings').select(['state', 'end_reason']).where('id', '=', listing.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { state: 'ended', end_reason: 'invalid' });
    const rot = await m.call('POST', `/v1/listings/${listing.id}/rotation`, seller.token, {});
    assert.equal(rot.status, 409, JSON.stringify(rot.body));
    assert.equal(rot.body.code, 'state_changed');
  });
});

describe('exact offers: a reorg undoes the unit\'s confirmation before the accept reaches the node', () => {
  void it('held, not released: 202 with hold (the node waits for the unit to confirm), the claims kept; the next block lets recovery relay the same bytes and the sale settles', async () => {
    const { b, placed, at, a, acc } = await authorizedAccept(26_000);
    assert.equal(acc.pf.requires_cpfp, false);
    // The unit's attach goes back to the node's mempool; the market's indexer has not seen the reorg.
    await m.devnet.reorg((await m.devnet.bitcoin.getTxOut(at.txid, at.vout, true))!.confirmations);
    assert.equal((await m.devnet.bitcoin.getTxOut(at.txid, at.vout, true))?.confirmations, 0);
    const r = await acc.send({ psbt_hex: acc.parent });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.result.settlement_state, 'journaled');
    assert.ok(['truc', 'chain_too_long'].includes(r.body.result.hold?.mempool_policy), JSON.stringify(r.body.result.hold));
    const claimed = async () => (await m.ctx.store.db.selectFrom('outpoint_claims').select('outpoint').where('outpoint', 'in', [`${at.txid}:${at.vout}`, `${placed.funding_slots[0]!.txid}:${placed.funding_slots[0]!.vout}`]).execute()).length;
    assert.equal(await claimed(), 2, 'the unit and the funding output stay claimed');
    const read = async () => (await m.call('GET', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, seller.token)).body.result;
    assert.deepEqual([(await read()).status, (await read()).claims_released], ['broadcasting', false]);
    const same = await acc.send({ psbt_hex: acc.parent });
    assert.deepEqual([same.status, same.body.result?.already_completed, same.body.result?.hold?.mempool_reason], [202, true, r.body.result.hold.mempool_reason], JSON.stringify(same.body));
    await m.mine();
    await m.sync();
    assert.deepEqual([(await read()).status, (await read()).hold], ['broadcast', null]);
    await m.mine();
    await m.sync();
    assert.equal((await read()).status, 'confirmed');
    assert.equal(await heldAt(m, b.w.address, seller.asset), 1n, 'the unit reached the bidder');
  });
});

describe('the event log', () => {
  void it('replays to exactly the public and owner feeds after every flow above (src/events/)', async () => {
    await assertLogReplaysFeeds(m);
  });
});
