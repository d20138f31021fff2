/**
 * A seller's accept of a collection offer: a unit outside the policy, one with two units,
 * an unconfirmed or unattached one, a stale price guard; and the races — two sellers accepting
 * one funding set, an accept racing a checkout of the same listed unit, an accept racing the
 * bidder's soft cancel. Exactly one side wins each time, and the signer never signs twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { cancelMessage } from '../../src/modules/policy-offers/rules.js';
import { assertLogReplaysFeeds } from '../helpers/event-log.js';
import { openMarket, type Market } from '../helpers/market.js';
import { interceptBitcoin } from '../helpers/chain.js';
import { listUnit, newSeller, type Seller } from '../helpers/listing.js';
import { complete, listingRow, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { signMessageBip322 } from '../helpers/wallets.js';
import { buildTx, coinOf, txidOf as buildTxid } from '../helpers/devnet.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { finalize, newBidder } from '../offers/exact-helpers.js';
import { SigHash } from '@scure/btc-signer';
import { signPsbt } from '../helpers/market.js';
import { acceptQuote, fillPool, placePolicy } from './policy-helpers.js';
import { walletCoins } from '../../src/modules/policy-offers/anchor-pool.js';
import { marketWallet, policyOfferUpkeep } from '../../src/modules/policy-offers/manifest.js';

let m: Market;
let seller: Seller;
/** Runs once just before the market's next submitpackage: a bidder's spend arriving between the accept's checks and its relay. */
let beforeSubmit: (() => Promise<unknown>) | null = null;
let outsider: Seller;
let s2: Seller;

before(async () => {
  m = await openMarket(
    { ANCHOR_POOL_SIZE: '8' },
    {
      wrapChain: (chain) =>
        interceptBitcoin(chain, {
          submitPackage: (real) => async (hexes: string[]) => {
            const hook = beforeSubmit;
            beforeSubmit = null;
            if (hook) await hook();
            return real.submitPackage(hexes);
          },
        }),
    },
  );
  seller = await newSeller(m, 'p2wpkh', 'pa-seller', 24);
  outsider = await newSeller(m, 'p2tr', 'pa-outsider', 2);
  s2 = await newSeller(m, 'p2wpkh', 'pa-seller-2', 1);
  await importCatalog(m.ctx.store.db, {
    collections: [{ slug: 'pa', name: 'PA' }, { slug: 'other', name: 'Other' }],
    artists: [],
    assets: [{ asset: seller.asset, collection: 'pa', max_supply_units: 24 }, { asset: s2.asset, collection: 'pa', max_supply_units: 1 }, { asset: outsider.asset, collection: 'other', max_supply_units: 2 }],
  });
  await fillPool(m);
});
after(async () => m?.close());

async function unit(s: Seller, qty = '1') {
  const at = await m.attachDirect(s.w, s.asset, qty);
  await m.mine();
  await m.sync();
  return at;
}

const offer = async (price = 30_000) => {
  const b = await newBidder(m, [200_000], 'p2tr');
  const { pf, set } = await placePolicy(m, b.w, b.token, [{ scope: 'collection', collection: 'pa', price_sats: price }]);
  return { b, parent: pf.parent.expected_txid as string, set };
};

describe('policy accept: bad units', () => {
  void it('refuses a unit outside the policy, two units, an unconfirmed or unattached output, and a net below the seller minimum', async () => {
    const { parent } = await offer();
    const out = await unit(outsider);
    const r1 = (await acceptQuote(m, outsider.w, outsider.token, parent, out)).q;
    assert.equal(r1.status, 422, JSON.stringify(r1.body));
    assert.equal(r1.body.refusal_code, 'unit_outside_policy');

    const two = await unit(seller, '2');
    const r2 = (await acceptQuote(m, seller.w, seller.token, parent, two)).q;
    assert.equal(r2.body.refusal_code, 'unit_not_one_unit', JSON.stringify(r2.body));

    // An attach still in the mempool: unconfirmed.
    const coin = await m.fund(seller.w, 20_000);
    const hexTx = buildTx([{ wallet: seller.w, coin }], (input0) => [
      { script: seller.w.script, amount: 330n },
      { script: attachOutputScript({ input0Txid: input0, asset: seller.asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
      { script: seller.w.script, amount: coin.amount - 330n - 2_000n },
    ]);
    const pendingTxid = await m.devnet.bitcoin.broadcast(hexTx);
    const pending = (await acceptQuote(m, seller.w, seller.token, parent, { txid: pendingTxid, vout: 0 })).q;
    assert.equal(pending.status, 409, JSON.stringify(pending.body));
    assert.equal(pending.body.refusal_code, 'unit_unconfirmed');
    await m.mine();
    await m.sync();

    const btc = await m.fund(seller.w, 5_000);
    const r3 = (await acceptQuote(m, seller.w, seller.token, parent, { txid: btc.txid, vout: btc.vout })).q;
    assert.equal(r3.body.refusal_code, 'unit_unattached', JSON.stringify(r3.body));

    const notMine = await unit(seller);
    const r4 = (await acceptQuote(m, outsider.w, outsider.token, parent, notMine)).q;
    assert.equal(r4.body.refusal_code, 'unit_not_owned', JSON.stringify(r4.body));

    const r5 = (await acceptQuote(m, seller.w, seller.token, parent, notMine, { seller_min_net_sats: 29_999 })).q;
    assert.equal(r5.status, 422, JSON.stringify(r5.body));
    assert.equal(r5.body.refusal_code, 'seller_net_below_minimum');
    assert.ok(r5.body.seller_proceeds_sats < 29_999);

    // A seller's signature over another child (a changed output) is a template mismatch.
    const { q, signed } = await acceptQuote(m, seller.w, seller.token, parent, notMine);
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const wrongSig = await m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: q.body.result.accept_id, psbt_hex: q.body.result.psbt_hex });
    assert.equal(wrongSig.status, 422, JSON.stringify(wrongSig.body));
    assert.ok(signed);
  });
});

/** A fresh collection offer and a fresh confirmed unit of the seller's, with the seller's accept quoted and signed. */
async function signedAccept() {
  const { parent } = await offer();
  const u = await unit(seller);
  const { q, signed } = await acceptQuote(m, seller.w, seller.token, parent, u);
  assert.equal(q.status, 200, JSON.stringify(q.body));
  return { parent, u, body: { accept_id: q.body.result.accept_id as string, psbt_hex: signed } };
}
const confirmationsOf = async (u: { txid: string; vout: number }) => (await m.devnet.bitcoin.getTxOut(u.txid, u.vout, true))?.confirmations;
const claimsOn = (u: { txid: string; vout: number }) => m.ctx.store.db.selectFrom('outpoint_claims').select('outpoint').where('outpoint', '=', `${u.txid}:${u.vout}`).execute();

describe('policy accept: a reorg after the quote', () => {
  void it('a unit whose confirmation a reorg undid is refused unit_unconfirmed before anything is claimed; confirmed again, the same signed accept settles', async () => {
    const { u, body } = await signedAccept();
    // The unit's attach goes back to the node's mempool; the market's indexer has not seen the reorg yet.
    await m.devnet.reorg((await confirmationsOf(u))!);
    assert.equal(await confirmationsOf(u), 0);
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, body);
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, 'policy_offer_refused');
    assert.equal(r.body.refusal_code, 'unit_unconfirmed');
    assert.deepEqual(await claimsOn(u), [], 'nothing claimed or journaled for the unit');
    await m.mine();
    await m.sync();
    const again = await m.call('POST', '/v1/policy-accepts', seller.token, body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
  });

  void it('the unit is unconfirmed again when the package reaches the node: held, not released (202, hold chain_too_long, claims kept); the next block lets recovery relay the same bytes and the trade settles', async () => {
    const { parent, u, body } = await signedAccept();
    // The checks pass (the unit is confirmed); then, before the package reaches the node, a reorg
    // puts the unit's attach back in the mempool (sim day 9115: a relay held, then a reorg).
    beforeSubmit = async () => m.devnet.reorg((await confirmationsOf(u))!);
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, body);
    assert.equal(beforeSubmit, null, 'the package was submitted');
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const rec = r.body.result;
    assert.equal(rec.settlement_state, 'journaled');
    assert.deepEqual([rec.hold?.mempool_policy, rec.hold?.mempool_reason], ['chain_too_long', 'package-not-child-with-unconfirmed-parents']);
    assert.equal(rec.hold.until, Math.floor(m.clock.now() / 1000) + 3_600, 'an hour from the accept');
    assert.equal((await claimsOn(u)).length, 1, 'the unit stays claimed: nobody else can take it meanwhile');
    const metrics = async () => (await m.app.inject({ method: 'GET', url: '/metrics' })).body.match(/^market_settlements_held (\d+)$/m)?.[1];
    assert.equal(await metrics(), '1', 'the operator sees the hold');
    const read = await m.call('GET', `/v1/policy-accepts/${body.accept_id}`, seller.token);
    assert.deepEqual([read.body.result.status, read.body.result.claims_released, read.body.result.hold?.mempool_policy], ['broadcasting', false, 'chain_too_long'], JSON.stringify(read.body));
    // The same bytes again: the same held record, nothing journaled twice.
    const same = await m.call('POST', '/v1/policy-accepts', seller.token, body);
    assert.deepEqual([same.status, same.body.result?.already_completed, same.body.result?.hold?.mempool_policy], [202, true, 'chain_too_long'], JSON.stringify(same.body));
    // The unit's attach confirms; recovery relays the very bytes the node refused, and they land.
    await m.mine();
    await m.sync();
    const after = await m.call('GET', `/v1/policy-accepts/${body.accept_id}`, seller.token);
    assert.deepEqual([after.body.result.status, after.body.result.hold, after.body.result.mempool_reason], ['broadcast', null, null], JSON.stringify(after.body));
    assert.equal(await metrics(), '0');
    assert.ok(await m.devnet.bitcoin.getTransaction(rec.txid), 'the accept child is in the mempool');
    await m.mine();
    await m.sync();
    const done = await m.call('GET', `/v1/policy-accepts/${body.accept_id}`, seller.token);
    assert.equal(done.body.result.status, 'confirmed', JSON.stringify(done.body));
    assert.equal((await m.devnet.bitcoin.getTxOut(parent, 0, true)), null, "the escrow is spent: the seller was paid");
  });

  void it('a hold that outlives its bound is released as the refusal it is: failed mempool_rejected chain_too_long, claims released, the co-signed set ended', async () => {
    const { parent, u, body } = await signedAccept();
    beforeSubmit = async () => m.devnet.reorg((await confirmationsOf(u))!);
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, body);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    // Within the hour, recovery's refused relays keep it held.
    m.clock.advance(3_599_000);
    await m.sync();
    assert.equal((await m.call('GET', `/v1/policy-accepts/${body.accept_id}`, seller.token)).body.result.status, 'broadcasting');
    // The hour passes without the unit's attach confirming: the next refusal releases it.
    m.clock.advance(1_000);
    await m.sync();
    const read = await m.call('GET', `/v1/policy-accepts/${body.accept_id}`, seller.token);
    const o = read.body.result;
    assert.deepEqual([o.status, o.claims_released, o.failure_code, o.mempool_policy, o.hold], ['failed', true, 'mempool_rejected', 'chain_too_long', null], JSON.stringify(o));
    assert.deepEqual(await claimsOn(u), [], 'the unit is free again');
    // The same bytes again answer how they ended, not the accepted record.
    const same = await m.call('POST', '/v1/policy-accepts', seller.token, body);
    assert.deepEqual([same.status, same.body.code, same.body.mempool_policy, same.body.claims_released], [422, 'mempool_rejected', 'chain_too_long', true], JSON.stringify(same.body));
    // The signer co-signed the parent for this child, and never signs another: the set ends (as on
    // any refused accept after the co-signature), and a new quote says so with its own code.
    await m.mine();
    await m.sync();
    const again = await acceptQuote(m, seller.w, seller.token, parent, u);
    assert.deepEqual([again.q.status, again.q.body.code, again.q.body.refusal_code], [409, 'policy_offer_refused', 'funding_set_closed'], JSON.stringify(again.q.body));
  });
});

describe('the anchor a filled parent returns (sim day 9116)', () => {
  void it("is never a refill's plain coin, even while the node has mined the parent and the market has not indexed it", async () => {
    const { parent, body } = await signedAccept();
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await m.mine(); // the node confirms parent and child; the market's indexer has not read the block
    assert.ok((await m.devnet.bitcoin.getTxOut(parent, 1, true))!.confirmations >= 1);
    const coins = await walletCoins(m.ctx, await marketWallet(m.ctx));
    assert.ok(coins.length > 0, 'the wallet has other coins');
    assert.ok(!coins.some((c) => c.txid === parent && c.vout === 1), "the parent's output 1 is an anchor to be, not a coin");
    await m.sync();
    const a = await m.ctx.store.db.selectFrom('market_anchors').select('state').where('outpoint', '=', `${parent}:1`).executeTakeFirstOrThrow();
    assert.equal(a.state, 'free');
  });

  void it('is not added as an anchor when a settlement already spends it (that settlement\'s coin)', async () => {
    const { parent, body } = await signedAccept();
    assert.equal((await m.call('POST', '/v1/policy-accepts', seller.token, body)).status, 200);
    await m.mine();
    await m.ctx.store.db.insertInto('outpoint_claims').values({ outpoint: `${parent}:1`, settlement_id: 'set_spender', created_at: m.clock.now() }).execute();
    await m.sync();
    const rows = await m.ctx.store.db.selectFrom('market_anchors').select('state').where('outpoint', '=', `${parent}:1`).execute();
    assert.deepEqual(rows, []);
    await m.ctx.store.db.deleteFrom('outpoint_claims').where('outpoint', '=', `${parent}:1`).execute();
  });

  void it('a retired anchor that another settlement already spends is left out of the sweep: the upkeep run goes on, and sweeps it once that claim is released', async () => {
    const free = await m.ctx.store.db.selectFrom('market_anchors').select('outpoint').where('state', '=', 'free').executeTakeFirstOrThrow();
    // The state a refill that took the coin before the market knew it as an anchor left behind.
    await m.ctx.store.db.updateTable('market_anchors').set({ state: 'retired' }).where('outpoint', '=', free.outpoint).execute();
    await m.ctx.store.db.insertInto('outpoint_claims').values({ outpoint: free.outpoint, settlement_id: 'set_elsewhere', created_at: m.clock.now() }).execute();
    await policyOfferUpkeep(m.ctx);
    const row = async () => (await m.ctx.store.db.selectFrom('market_anchors').select('state').where('outpoint', '=', free.outpoint).executeTakeFirstOrThrow()).state;
    assert.equal(await row(), 'retired');
    await m.ctx.store.db.deleteFrom('outpoint_claims').where('outpoint', '=', free.outpoint).execute();
    await policyOfferUpkeep(m.ctx);
    assert.equal(await row(), 'sweeping');
  });
});

describe('policy accept: the bidder backs out', () => {
  void it('a bidder who spends its funding (still unconfirmed) is detected: the accept is refused funding_spent; once mined the offer is invalid', async () => {
    const { b, parent, set } = await offer();
    const u = await unit(seller);
    const ct = await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token, { fee_rate: 2 });
    assert.equal(ct.status, 200, JSON.stringify(ct.body));
    await m.devnet.bitcoin.broadcast(finalize(signPsbt(ct.body.result.psbt_hex, b.w, ct.body.result.signing.inputs_to_sign, SigHash.DEFAULT)));
    const q = (await acceptQuote(m, seller.w, seller.token, parent, u)).q;
    assert.equal(q.status, 409, JSON.stringify(q.body));
    assert.equal(q.body.refusal_code, 'funding_spent');
    await m.mine();
    await m.sync();
    const after = await m.call('GET', `/v1/address/${b.w.address}/policy-offers`, b.token);
    assert.deepEqual(after.body.result.map((o: any) => o.status), ['invalid'], 'the spend mined: the watcher ended the offer');
  });
});

describe('policy accept: the bidder wins a race after the accept', () => {
  void it('the package left the mempool and the bidder\'s self-send confirmed first: the settlement is conflicted, the set invalid, the seller told', async () => {
    const { b, parent, set } = await offer();
    const u = await unit(seller);
    const acc = await acceptQuote(m, seller.w, seller.token, parent, u);
    const ct = await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token, { fee_rate: 2 });
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc.q.body.result.accept_id, psbt_hex: acc.signed });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // A node restarted without its mempool: the bidder's double spend gets in first and confirms.
    await m.devnet.dropMempool();
    await m.devnet.bitcoin.broadcast(finalize(signPsbt(ct.body.result.psbt_hex, b.w, ct.body.result.signing.inputs_to_sign, SigHash.DEFAULT)));
    await m.mine();
    await m.sync();
    await m.sync();
    const s = await m.ctx.store.db.selectFrom('settlements').select('state').where('id', '=', r.body.result.settlement_id).executeTakeFirstOrThrow();
    assert.equal(s.state, 'conflicted');
    const row = await m.ctx.store.db.selectFrom('policy_funding_sets').select(['state', 'end_reason']).where('id', '=', set.funding_set_id).executeTakeFirstOrThrow();
    assert.equal(row.state, 'invalid');
    const told = await m.ctx.store.db.selectFrom('owner_events').selectAll().where('address', '=', seller.w.address).where('kind', '=', 'collection_offer_accept_conflicted').execute();
    assert.equal(told.length, 1);
    const fills = await m.ctx.store.db.selectFrom('fills').select('state').where('settlement_id', '=', r.body.result.settlement_id).execute();
    assert.deepEqual(fills.map((f) => f.state), ['dropped']);
    // The unit is still the seller's: it can be sold again.
    assert.ok(await m.ctx.chain.bitcoin.getTxOut(u.txid, u.vout));
  });
});

describe('policy accept: the package left the mempool and the seller moved the unit (sim day 9122)', () => {
  void it('the node answers the package package-not-child-with-unconfirmed-parents, not a conflict; the journal asks the node, finds the unit spent elsewhere and ends the settlement conflicted', async () => {
    const { parent, u, body } = await signedAccept();
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await m.devnet.dropMempool();
    // The seller's wallet moves the unit in a block of its own while the package is out of the mempool.
    const fee = await m.fund(seller.w, 10_000);
    await m.devnet.bitcoin.broadcast(buildTx([{ wallet: seller.w, coin: coinOf(m.devnet, u.txid, u.vout) }, { wallet: seller.w, coin: fee }], [{ script: seller.w.script, amount: 9_330n }]));
    await m.mine();
    await m.sync();
    const s = await m.ctx.store.db.selectFrom('settlements').select(['state', 'mempool_reason']).where('id', '=', r.body.result.settlement_id).executeTakeFirstOrThrow();
    assert.equal(s.state, 'conflicted', JSON.stringify(s));
    assert.match(s.mempool_reason!, new RegExp(`^bad-txns-inputs-missingorspent, ${u.txid}:${u.vout} is spent by another transaction \\(the node said: package-not-child-with-unconfirmed-parents\\)$`));
    const read = await m.call('GET', `/v1/policy-accepts/${body.accept_id}`, seller.token);
    assert.deepEqual([read.body.result.status, read.body.result.failure_code, read.body.result.claims_released], ['failed', 'conflict_spend', true], JSON.stringify(read.body));
    const set = await m.ctx.store.db.selectFrom('policy_funding_sets').select('state').where('parent_txid', '=', parent).executeTakeFirstOrThrow();
    assert.equal(set.state, 'invalid');
  });
});

describe('policy accept: the hard-cancel race, both ways (package RBF as on Core 28+)', () => {
  /** The hard cancel at `feeRate`, broadcast just before the accept's package reaches the node. */
  async function raceAt(feeRate: number) {
    const { b, parent, set } = await offer();
    const u = await unit(seller);
    const acc = await acceptQuote(m, seller.w, seller.token, parent, u);
    const ct = await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token, { fee_rate: feeRate });
    assert.equal(ct.status, 200, JSON.stringify(ct.body));
    const cancelHex = finalize(signPsbt(ct.body.result.psbt_hex, b.w, ct.body.result.signing.inputs_to_sign, SigHash.DEFAULT));
    beforeSubmit = () => m.devnet.bitcoin.broadcast(cancelHex);
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc.q.body.result.accept_id, psbt_hex: acc.signed });
    return { b, set, r, cancelTxid: buildTxid(cancelHex), acceptId: acc.q.body.result.accept_id as string };
  }

  /** The saved accept (the recovery read after a lost completion reply). */
  const acceptStatus = async (id: string, token = seller.token) => m.call('GET', `/v1/policy-accepts/${id}`, token);

  void it('the accept package pays more: it replaces the unconfirmed hard cancel, the fill stands and confirms', async () => {
    const { b, set, r, cancelTxid, acceptId } = await raceAt(1);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(await m.devnet.bitcoin.getTransaction(cancelTxid), null, 'the hard cancel was replaced');
    const read = await acceptStatus(acceptId);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.deepEqual([read.body.result.status, read.body.result.txid, read.body.result.settlement_id, read.body.result.failure_code], ['broadcast', r.body.result.txid, r.body.result.settlement_id, null]);
    assert.equal((await acceptStatus(acceptId, b.token)).status, 404, "another address's accept is not found");
    await m.mine();
    await m.sync();
    const confirmed = (await acceptStatus(acceptId)).body.result;
    assert.deepEqual([confirmed.status, confirmed.confirmations], ['confirmed', 1]);
    const s = await m.ctx.store.db.selectFrom('settlements').select('state').where('id', '=', r.body.result.settlement_id).executeTakeFirstOrThrow();
    assert.equal(s.state, 'confirmed');
    const fills = await m.ctx.store.db.selectFrom('fills').select('state').where('settlement_id', '=', r.body.result.settlement_id).execute();
    assert.deepEqual(fills.map((f) => f.state), ['confirmed']);
    const row = await m.ctx.store.db.selectFrom('policy_funding_sets').select('state').where('id', '=', set.funding_set_id).executeTakeFirstOrThrow();
    assert.equal(row.state, 'filled');
    const bidderFeed = (await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result.map((e: any) => e.kind);
    assert.ok(bidderFeed.includes('collection_offer_filled'), JSON.stringify(bidderFeed));
  });

  void it('the hard cancel pays more: the package loses to the replacing spend (state_changed with mempool_reason), the set ends invalid, the seller is told', async () => {
    const { set, r, cancelTxid, acceptId } = await raceAt(60);
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, 'state_changed');
    assert.equal(typeof r.body.mempool_reason, 'string');
    const read = (await acceptStatus(acceptId)).body.result;
    assert.deepEqual([read.status, read.failure_code, read.claims_released, read.mempool_reason, read.settlement_id], ['failed', 'state_changed', true, r.body.mempool_reason, r.body.settlement_id], JSON.stringify(read));
    assert.ok(await m.devnet.bitcoin.getMempoolEntry(cancelTxid), 'the hard cancel stays');
    const row = await m.ctx.store.db.selectFrom('policy_funding_sets').select('state').where('id', '=', set.funding_set_id).executeTakeFirstOrThrow();
    assert.equal(row.state, 'invalid');
    const told = await m.ctx.store.db.selectFrom('owner_events').select('kind').where('address', '=', seller.w.address).where('kind', '=', 'collection_offer_accept_conflicted').execute();
    assert.ok(told.length >= 1);
    await m.mine();
    await m.sync();
  });
});

describe('policy accept: races', () => {
  void it('two sellers accept one funding set at once: exactly one wins, the other is refused, the signer signed one child', async () => {
    const { parent } = await offer();
    const [u1, u2] = [await unit(seller), await unit(s2)];
    const a = await acceptQuote(m, seller.w, seller.token, parent, u1);
    const b = await acceptQuote(m, s2.w, s2.token, parent, u2);
    assert.equal(a.q.status, 200, JSON.stringify(a.q.body));
    assert.equal(b.q.status, 200, JSON.stringify(b.q.body));
    const [ra, rb] = await Promise.all([
      m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: a.q.body.result.accept_id, psbt_hex: a.signed }),
      m.call('POST', '/v1/policy-accepts', s2.token, { accept_id: b.q.body.result.accept_id, psbt_hex: b.signed }),
    ]);
    const statuses = [ra.status, rb.status].sort();
    assert.deepEqual(statuses, [200, 409], JSON.stringify([ra.body, rb.body]));
    const loser = ra.status === 409 ? ra : rb;
    assert.equal(loser.body.code, 'policy_offer_refused');
    assert.equal(loser.body.refusal_code, 'funding_set_closed');
    const settlements = await m.ctx.store.db.selectFrom('settlements').select('id').where('kind', '=', 'policy_accept').where('ref_id', 'in', [a.q.body.result.accept_id, b.q.body.result.accept_id]).execute();
    assert.equal(settlements.length, 1);
  });

  void it('an accept racing a checkout of the same listed unit: one wins, the unit moves once', async () => {
    const { parent } = await offer(40_000);
    const listing = await listUnit(m, seller, 35_000);
    const row = await listingRow(m, listing.id);
    const [txid, vout] = row.utxo_outpoint.split(':');
    const acc = await acceptQuote(m, seller.w, seller.token, parent, { txid: txid!, vout: Number(vout) });
    assert.equal(acc.q.status, 200, JSON.stringify(acc.q.body));
    const buyer = await newBuyer(m, 'p2wpkh', 'pa-buyer');
    const q = await quoteOk(m, buyer, { lines: [{ listing_id: listing.id }] });
    const [r1, r2] = await Promise.all([
      m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc.q.body.result.accept_id, psbt_hex: acc.signed }),
      complete(m, buyer, q.id, signQuote(q, buyer.w)),
    ]);
    const wins = [r1.status, r2.status].filter((s) => s === 200 || s === 202).length;
    assert.equal(wins, 1, JSON.stringify([r1.status, r1.body, r2.status, r2.body]));
    const claims = await m.ctx.store.db.selectFrom('outpoint_claims').selectAll().where('outpoint', '=', row.utxo_outpoint).execute();
    assert.equal(claims.length, 1);
  });

  void it('an accept racing the bidder\'s soft cancel: the signer decides once; cancelled and filled never both', async () => {
    for (let round = 0; round < 3; round++) {
      const { b, parent, set } = await offer();
      const u = await unit(seller);
      const acc = await acceptQuote(m, seller.w, seller.token, parent, u);
      assert.equal(acc.q.status, 200, JSON.stringify(acc.q.body));
      const sig = signMessageBip322(b.w, cancelMessage(parent));
      const [ra, rc] = await Promise.all([
        m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc.q.body.result.accept_id, psbt_hex: acc.signed }),
        m.call('POST', `/v1/policy-offers/${set.offers[0].id}/cancel`, b.token, { address: b.w.address, signature: sig }),
      ]);
      assert.equal(rc.status, 200, JSON.stringify(rc.body));
      if (ra.status === 200) {
        assert.equal(rc.body.result.cancelled, false);
        assert.equal(rc.body.result.already_signed, true);
      } else {
        assert.equal(ra.status, 409, JSON.stringify(ra.body));
        assert.equal(rc.body.result.cancelled, true);
        assert.ok(['alternative_cancelled', 'funding_set_closed'].includes(ra.body.refusal_code), JSON.stringify(ra.body));
      }
      const row = await m.ctx.store.db.selectFrom('policy_funding_sets').select('state').where('id', '=', set.funding_set_id).executeTakeFirstOrThrow();
      assert.equal(row.state, ra.status === 200 ? 'filled' : 'cancelled');
    }
  });
});

describe('policy accept: released by mistake, then confirmed by the chain', () => {
  void it('the set is filled again when its block arrives: the alternative filled (its retirement withdrawn), the anchor spent, the listing the seller delisted meanwhile sold', async () => {
    // The races above can leave every anchor of the small pool held or retired: refill it first.
    await fillPool(m);
    const { b, parent, set } = await offer(41_000);
    const listing = await listUnit(m, seller, 39_000);
    const row = await listingRow(m, listing.id);
    const [txid, vout] = row.utxo_outpoint.split(':');
    const acc = await acceptQuote(m, seller.w, seller.token, parent, { txid: txid!, vout: Number(vout) });
    assert.equal(acc.q.status, 200, JSON.stringify(acc.q.body));
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc.q.body.result.accept_id, psbt_hex: acc.signed });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const settlementId = r.body.result.settlement_id as string;
    // Released as a refusal the node later turns out not to have meant (a peer had the package).
    assert.equal(await m.ctx.journal.release(settlementId, 'rejected', 'txn-already-known'), true);
    const setRow = () => m.ctx.store.db.selectFrom('policy_funding_sets').select(['state', 'end_reason', 'anchor_outpoint']).where('id', '=', set.funding_set_id).executeTakeFirstOrThrow();
    assert.equal((await setRow()).state, 'invalid', 'the release ended the co-signed set');
    assert.equal((await listingRow(m, listing.id)).state, 'active', 'the release put the listing back');
    const d = await m.call('POST', `/v1/listings/${listing.id}/delist`, seller.token);
    assert.equal(d.status, 200, JSON.stringify(d.body));

    await m.mine();
    await m.sync();
    assert.equal((await m.ctx.journal.byId(settlementId))!.state, 'confirmed');
    const after = await setRow();
    assert.deepEqual([after.state, after.end_reason], ['filled', null]);
    const alt = await m.ctx.store.db.selectFrom('policy_offers').select(['state', 'end_reason']).where('id', '=', set.offers[0].id).executeTakeFirstOrThrow();
    assert.deepEqual([alt.state, alt.end_reason], ['filled', 'filled']);
    const anchor = await m.ctx.store.db.selectFrom('market_anchors').select('state').where('outpoint', '=', after.anchor_outpoint).executeTakeFirstOrThrow();
    assert.equal(anchor.state, 'spent', 'the parent spent it on chain: never swept');
    assert.equal((await listingRow(m, listing.id)).state, 'sold');
    const fills = await m.ctx.store.db.selectFrom('fills').select('state').where('settlement_id', '=', settlementId).execute();
    assert.deepEqual(fills.map((f) => f.state), ['confirmed']);
    const feed = (await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result as Array<{ kind: string; status: string }>;
    assert.ok(feed.some((e) => e.kind === 'collection_offer_filled'), JSON.stringify(feed));
    assert.ok(!feed.some((e) => e.kind === 'collection_offer_retired'), 'the retirement is withdrawn: ' + JSON.stringify(feed));
  });
});

describe('the event log', () => {
  void it('replays to exactly the public and owner feeds after every flow above (src/events/)', async () => {
    await assertLogReplaysFeeds(m);
  });
});

// Last: its reorg and lost mempool change the chain the other cases share.
describe("policy accept: the unit's source left the node while the package was out of the mempool", () => {
  void it("the node answers the package package-not-child-with-unconfirmed-parents; the journal finds the unit's source in neither the node's mempool nor its chain nor the journal, and ends the settlement conflicted (missing-inputs), where before it stayed relayed for ever", async () => {
    await fillPool(m);
    const { parent, u, body } = await signedAccept();
    const depth = (await confirmationsOf(u))!;
    const r = await m.call('POST', '/v1/policy-accepts', seller.token, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // A reorg puts the unit's attach back in the mempool, and the mempool is then lost (a node
    // restarted without its mempool): the attach is nobody's to relay but its owner's.
    await m.devnet.reorg(depth);
    await m.devnet.dropMempool();
    assert.equal(await m.devnet.bitcoin.getTransaction(u.txid), null, "the unit's source is gone from the node");
    await m.sync();
    const s = await m.ctx.store.db.selectFrom('settlements').select(['state', 'mempool_reason']).where('id', '=', r.body.result.settlement_id).executeTakeFirstOrThrow();
    assert.equal(s.state, 'conflicted', JSON.stringify(s));
    assert.match(s.mempool_reason!, new RegExp(`^missing-inputs, the source of ${u.txid}:${u.vout} is neither in the node's mempool nor in its chain \\(the node said: package-not-child-with-unconfirmed-parents\\)$`));
    const read = await m.call('GET', `/v1/policy-accepts/${body.accept_id}`, seller.token);
    assert.deepEqual([read.body.result.status, read.body.result.failure_code, read.body.result.claims_released], ['failed', 'conflict_spend', true], JSON.stringify(read.body));
    assert.deepEqual(await claimsOn(u), [], 'the unit is free again');
    const set = await m.ctx.store.db.selectFrom('policy_funding_sets').select('state').where('parent_txid', '=', parent).executeTakeFirstOrThrow();
    assert.equal(set.state, 'invalid');
  });
});
